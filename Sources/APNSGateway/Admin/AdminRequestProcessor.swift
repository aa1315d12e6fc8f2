import APNSCore
import Courier
import Foundation
package import HeraldTime
package import NIOCore

/// The admin API (JSON over HTTPS, HTTP/2 and HTTP/1.1, on the gateway's port); docs/gateway.md describes it. Every
/// route needs the admin credential (`Authorization: Bearer <DATA/admin-token>`); without it the answer is 401.
///
/// - `POST /admin/devices` `{"topic", "environment", "token"?}` → `201 {"token", "secret"?}` (the device secret a
///   courier `register` proves, for a token made now); with `"count": N` (at most 100,000) → `201 {"tokens": [...],
///   "secrets": [...]}`: N new tokens at once, for load tests; over the source address's
///   ``TokenCreationLimit``, `429`
/// - `DELETE /admin/devices/<token>` → `204`; later pushes get `410 Unregistered` with this time
/// - `POST /admin/devices/<token>/expire` → `204`; later pushes get `410 ExpiredToken`
/// - `GET /admin/devices/<token>/notifications` → `{"stored": [...], "delivered": [...]}`
/// - `GET /admin/deliveries?apns-id=<id>` or `?apns-unique-id=<id>` → the delivery log entry
/// - `POST /admin/keys` `{"team-id", "key-id", "pem", "topics"?, "environment"?}` → `201`
/// - `POST /admin/certificates` `{"topic", "environment"?}` → `201 {"certificate", "key", "topics", "environments"}`
/// - `POST /admin/faults` `{"status", "reason", "count"?, "token"?}` or `{"goaway", "count"?, "token"?}` → `201`
///   (`"channel-id"` instead of `"token"`: only broadcasts on that channel); `DELETE /admin/faults` → `204`
/// - `POST /admin/apps/<bundle ID>/broadcast` `{"enabled", "environment"?}` → `200`: switches broadcast on or off
///   (off: `FeatureNotEnabled`)
/// - `GET /admin/channels?bundle-id=&environment=` → `{"channels": [...]}` with subscriber counts
/// - `GET /admin/broadcasts?channel-id=` → `{"broadcasts": [...]}`: the latest broadcasts, their reach and
///   acknowledgement times
/// - `GET /admin/status` → `{"journal", "devices", "stored"}`: whether the gateway keeps its state on disk (`false` in the
///   load-test mode, with a `"warning"` saying what that costs), how many device tokens it knows and how many pushes
///   wait for their devices
/// - `GET /admin/metrics` → Prometheus' text format: pushes answered by result, reason and push type, devices known,
///   connected and with a stored push, connections, the journal's size and write times, refusals by kind
/// - `GET /admin/refusals` → `{"refusals": {"admin": n, "courier-message": n, ...}}`: what the gateway refused since it
///   started, by kind (each is also logged with the peer and why)
package struct AdminRequestProcessor: Sendable {
    let registry: DeviceRegistry
    let store: NotificationStore
    let channels: ChannelRegistry
    let keys: ProviderKeys
    let faults: InjectedFaults
    let credential: AdminCredential
    /// Issues provider certificates; `nil` where none can be issued (tests of the processor alone).
    let certificateAuthority: LocalCertificateAuthority?
    /// The refusals to report; `nil` in tests of the processor alone.
    let refusals: GatewayRefusals?
    /// How many tokens `POST /admin/devices` may create per source address.
    let tokenLimit: TokenCreationLimit
    /// Whether devices, stored pushes and channels are kept in the journal (`false`: the load-test mode).
    let journal: Bool
    /// The time of day the gateway goes by.
    let clock: any WallClock
    /// The gateway's metrics in Prometheus' text format, read now; `nil` in tests of the processor alone.
    let exposition: (@Sendable () -> String)?

    package init(
        registry: DeviceRegistry, store: NotificationStore, channels: ChannelRegistry = ChannelRegistry(),
        keys: ProviderKeys, faults: InjectedFaults, credential: AdminCredential,
        certificateAuthority: LocalCertificateAuthority?, refusals: GatewayRefusals? = nil,
        tokenLimit: TokenCreationLimit = TokenCreationLimit(perMinute: .max), journal: Bool = true,
        clock: any WallClock, exposition: (@Sendable () -> String)? = nil
    ) {
        self.exposition = exposition
        self.registry = registry
        self.store = store
        self.channels = channels
        self.keys = keys
        self.faults = faults
        self.credential = credential
        self.certificateAuthority = certificateAuthority
        self.refusals = refusals
        self.tokenLimit = tokenLimit
        self.journal = journal
        self.clock = clock
    }

    /// Answers one admin request from `source` (the peer's address, which ``tokenLimit`` counts by).
    package func process(
        method: String?, path fullPath: String, body: [UInt8], authorization: String?, source: SocketAddress?
    ) -> AdminResponse {
        if let refusal = credential.refusal(authorization: authorization) { return .error(401, refusal) }
        let parts = fullPath.split(separator: "?", maxSplits: 1)
        let path = parts.first.map(String.init) ?? ""
        let query = parts.count > 1 ? AdminQuery(String(parts[1])) : AdminQuery("")
        let segments = path.split(separator: "/").map(String.init)
        do throws(AdminError) {
            return try route(method ?? "", segments, body: body, query: query, source: source)
        } catch {
            return .error(error.status, error.message)
        }
    }

    private func route(
        _ method: String, _ segments: [String], body: [UInt8], query: AdminQuery, source: SocketAddress?
    ) throws(AdminError) -> AdminResponse {
        let path = "/" + segments.joined(separator: "/")
        guard segments.first == "admin" else { throw AdminError(404, "no admin endpoint \(path); see docs/gateway.md") }
        let rest = Array(segments.dropFirst())
        let matching = Self.routes.compactMap { route in route.parameters(of: rest).map { (route, $0) } }
        guard !matching.isEmpty else { throw AdminError(404, "no admin endpoint \(path); see docs/gateway.md") }
        guard let (route, parameters) = matching.first(where: { $0.0.method == method }) else {
            let allowed = Set(matching.map(\.0.method)).sorted().joined(separator: ", ")
            throw AdminError(405, "\(method) is not allowed on \(path) (\(allowed) is); see docs/gateway.md")
        }
        let request = AdminRoute.Request(body: body, query: query, source: source, parameters: parameters)
        return try route.handle(self, request)
    }

    /// What the gateway holds, and whether it keeps it across restarts.
    func status() -> AdminResponse {
        var fields: [(key: String, value: JSONValue)] = [
            ("journal", .bool(journal)), ("devices", .number(JSONNumber(registry.count))),
            ("stored", .number(JSONNumber(store.storedCount))),
        ]
        if !journal { fields.append(("warning", .string(Self.loadTestWarning))) }
        return .json(200, .object(JSONObject(fields)))
    }

    /// What the load-test mode costs, as the start banner and `GET /admin/status` say it.
    package static let loadTestWarning =
        "load-test mode (--no-journal): devices, stored notifications and channels are kept in memory only, "
        + "never written to disk, and lost when the gateway stops"

    /// The gateway's metrics in Prometheus' text format.
    func metrics() -> AdminResponse {
        var response = AdminResponse(status: 200, body: Array((exposition?() ?? "").utf8))
        response.contentType = "text/plain; version=0.0.4"
        return response
    }

    /// What the gateway refused since it started, by kind.
    func listRefusals() -> AdminResponse {
        let counts = GatewayRefusals.Kind.allCases.map { kind in
            (key: kind.rawValue, value: JSONValue.number(JSONNumber(refusals?.count(kind) ?? 0)))
        }
        return .json(200, ["refusals": .object(JSONObject(counts))])
    }
}

extension AdminRequestProcessor {
    /// The time now, on the gateway's clock.
    func now() -> Date { clock.currentDate }
}
