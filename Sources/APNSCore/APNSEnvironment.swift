/// Which APNs a device token and a connection belong to: development (sandbox) or production.
public struct APNSEnvironment: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The development environment (`api.sandbox.push.apple.com`), for apps built with a development profile.
    public static let development = APNSEnvironment(rawValue: "development")
    /// The production environment (`api.push.apple.com`), for App Store, TestFlight and ad hoc builds.
    public static let production = APNSEnvironment(rawValue: "production")

    /// Apple's host for this environment.
    public var host: String { self == .production ? "api.push.apple.com" : "api.sandbox.push.apple.com" }

    /// Apple's channel management host for this environment.
    public var channelManagementHost: String {
        self == .production ? "api-manage-broadcast.push.apple.com" : "api-manage-broadcast.sandbox.push.apple.com"
    }

    /// Apple's channel management port for this environment: 2196 in production, 2195 in development.
    public var channelManagementPort: Int { self == .production ? 2196 : 2195 }

    /// Apple's host names: the sandbox and its older name `api.development.push.apple.com` are development; so are
    /// the sandbox's broadcast and channel management hosts.
    public static let hosts: [String: APNSEnvironment] = [
        "api.push.apple.com": .production,
        "api.sandbox.push.apple.com": .development,
        "api.development.push.apple.com": .development,
        "api-broadcast.push.apple.com": .production,
        "api-broadcast.sandbox.push.apple.com": .development,
        "api-manage-broadcast.push.apple.com": .production,
        "api-manage-broadcast.sandbox.push.apple.com": .development,
    ]

    /// The environment an `:authority` (or `host`) names, with or without a port; `nil` for a name that is not one
    /// of Apple's.
    public init?(authority: String) {
        var host = Substring(authority)
        if let colon = host.utf8.lastIndex(of: UInt8(ascii: ":")), host.utf8.last != UInt8(ascii: "]") {
            host = host[..<colon]
        }
        // Any other name is told apart by its length alone, without a lower-cased copy: a gateway reads one on
        // every request, most often its own address.
        guard Self.hostLengths.contains(host.utf8.count),
            let environment = Self.hosts[host.lowercased()]
        else { return nil }
        self = environment
    }

    /// The lengths of ``hosts``.
    private static let hostLengths = hosts.keys.map(\.utf8.count).min()!...hosts.keys.map(\.utf8.count).max()!

    /// Parses `development`, `sandbox` or `production`.
    public init?(name: String) {
        switch name.lowercased() {
        case "development", "sandbox": self = .development
        case "production": self = .production
        default: return nil
        }
    }

    public var description: String { rawValue }
}
