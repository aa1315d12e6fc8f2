import APNSClient
import APNSCore
import Foundation

/// The curl command that sends the same request, as Apple's Push Notifications Console shows one.
struct CurlCommand {
    let endpoint: APNSEndpoint
    let caFile: String?
    /// The `apns-*` headers, in order.
    let headerFields: [(name: String, value: String)]
    let authorization: String?
    let certificate: (path: String, password: String?, key: String?)?
    let payload: Data
    /// `/3/device/<token>`, or a broadcast's `/4/broadcasts/apps/<bundle ID>`.
    let path: String

    var text: String {
        var parts = ["curl -v --http2"]
        if let caFile { parts.append("--cacert \(Self.quote(caFile))") }
        if let certificate {
            let isP12 = [".p12", ".pfx"].contains { certificate.path.lowercased().hasSuffix($0) }
            if isP12 { parts.append("--cert-type P12") }
            let password = certificate.password.map { ":\($0)" } ?? ""
            parts.append("--cert \(Self.quote(certificate.path + password))")
            if let key = certificate.key { parts.append("--key \(Self.quote(key))") }
        }
        if let authorization { parts.append("--header \(Self.quote("authorization: \(authorization)"))") }
        for (name, value) in headerFields { parts.append("--header \(Self.quote("\(name): \(value)"))") }
        parts.append("--data \(Self.quote(String(decoding: payload, as: UTF8.self)))")
        parts.append(Self.quote("\(endpoint)\(path)"))
        return parts.joined(separator: " \\\n  ") + "\n"
    }

    /// Single-quoted for a POSIX shell.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
