import APNSCore
import Foundation

/// Where a client sends: Apple's production or sandbox APNs, or any HTTPS URL (the local gateway) with an extra
/// trusted CA.
public struct APNSEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The host name or address to connect to; also the `:authority` and the TLS server name.
    public var host: String
    /// The TCP port (443, or 2197, APNs' alternate port).
    public var port: Int
    /// PEM certificates trusted besides the system's roots (the local gateway's `ca.pem`).
    public var additionalTrustRootsPEM: String?

    /// Where TCP goes instead of `host:port`, as `host:port` (a proxy's address, or a test pointing Apple's names at
    /// the local gateway); TLS and `:authority` keep ``host``, like `curl --connect-to`. `nil`: `host:port` itself.
    public var connectTo: String?

    public init(host: String, port: Int = 443, additionalTrustRootsPEM: String? = nil) {
        self.host = host
        self.port = port
        self.additionalTrustRootsPEM = additionalTrustRootsPEM
    }

    /// Apple's production APNs, `api.push.apple.com:443`.
    public static let production = APNSEndpoint(host: APNSEnvironment.production.host)
    /// Apple's sandbox (development) APNs, `api.sandbox.push.apple.com:443`.
    public static let sandbox = APNSEndpoint(host: APNSEnvironment.development.host)

    /// An endpoint from an `https://host[:port]` URL (a path is ignored).
    ///
    /// - Throws: ``APNSClientError`` when the URL is not `https` or has no host.
    public init(url: String, additionalTrustRootsPEM: String? = nil) throws(APNSClientError) {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "https",
            let host = components.host, !host.isEmpty
        else {
            throw APNSClientError("'\(url)' is not an https URL with a host; APNs is reached over HTTPS only")
        }
        self.init(host: host, port: components.port ?? 443, additionalTrustRootsPEM: additionalTrustRootsPEM)
    }

    /// The `:authority` requests carry: the host, with the port when it is not 443.
    public var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 443 ? name : "\(name):\(port)"
    }

    /// The address TCP connects to: ``connectTo`` split into host and port, or ``host`` and ``port``.
    public var connectAddress: (host: String, port: Int) {
        guard let connectTo, let colon = connectTo.lastIndex(of: ":"),
            let port = Int(connectTo[connectTo.index(after: colon)...])
        else { return (host, port) }
        let name = connectTo[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return (name, port)
    }

    public var description: String { "https://\(authority)" }
}
