import APNSGateway
import Foundation

/// What `herald gateway` prints once it listens: where, the CA to trust, where devices and the admin API are, and a
/// request to paste.
struct GatewayBanner {
    let host: String
    let port: Int
    /// The channel management API's port, when it listens.
    let managePort: Int?
    let caPath: String
    let token: String
    let topic: String
    let jwt: String?
    let hasKeys: Bool
    /// `TEAMID:KEYID:PATH` of a private key given with `--auth-key`, for the `herald send` example.
    let sendAuthKey: String?
    /// The admin credential: its token is shown only on the start that made it.
    let admin: AdminCredential
    /// Whether the journal keeps devices and stored pushes across restarts (`false`: `--no-journal`).
    var journal = true

    var text: String {
        let address = host.contains(":") ? "[\(host)]" : host
        let authorization = jwt.map { "bearer \($0)" } ?? "bearer <JWT signed with your .p8>"
        var lines = [
            "herald gateway: local APNs listening on https://\(address):\(port) (HTTP/2, TLS)",
            "CA certificate: \(caPath)",
            "example device token for \(topic): \(token)",
            "devices connect to wss://\(address):\(port)/courier (docs/courier.md); admin API: /admin/ (docs/gateway.md)",
            Self.adminLine(admin),
        ]
        if !journal { lines.append("WARNING: \(AdminRequestProcessor.loadTestWarning)") }
        if let managePort {
            lines.append(
                "broadcast channels: https://\(address):\(managePort)/1/apps/<bundle ID>/channels; broadcasts: "
                    + "POST https://\(address):\(port)/4/broadcasts/apps/<bundle ID> (docs/live-activities.md)")
        }
        lines += [
            "",
            "curl --http2 --cacert \(caPath) \\",
            "  -H 'apns-topic: \(topic)' -H 'apns-push-type: alert' \\",
            "  -H 'authorization: \(authorization)' \\",
            "  --data '{\"aps\":{\"alert\":\"Hello from Herald\"}}' \\",
            "  https://\(address):\(port)/3/device/\(token)",
        ]
        if let sendAuthKey {
            lines += [
                "",
                "\(RunningBinary.command) send --url https://\(address):\(port) --ca-file \(caPath) \\",
                "  --auth-key \(sendAuthKey) --topic \(topic) \\",
                "  --token \(token) --title 'Hello from Herald'",
            ]
        }
        if !hasKeys {
            lines.append("")
            lines.append(
                "no --auth-key given: every push is answered 403 InvalidProviderToken until you add one "
                    + "(--auth-key, or POST /admin/keys)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The admin credential's line: a warning when the admin API is open, the token on the start that made it, else
    /// where it is kept.
    static func adminLine(_ admin: AdminCredential) -> String {
        if admin.insecure {
            return "WARNING: --insecure-admin: anyone who reaches this port may use the admin API (add keys, read "
                + "stored pushes, arm faults)"
        }
        if admin.created {
            return "admin token (shown this once; kept in \(admin.path.path), mode 0600): \(admin.token)\n"
                + "  send it as Authorization: Bearer <token> to /admin/"
        }
        return "admin API token: in \(admin.path.path) (Authorization: Bearer <token>)"
    }
}
