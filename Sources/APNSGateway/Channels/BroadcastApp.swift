public import APNSCore

/// An app in one environment: channels are counted, and broadcast is switched on or off, per app and environment.
public struct BroadcastApp: Sendable, Hashable, CustomStringConvertible {
    public let bundleID: String
    public let environment: APNSEnvironment

    public init(bundleID: String, environment: APNSEnvironment) {
        self.bundleID = bundleID
        self.environment = environment
    }

    public var description: String { "\(bundleID) (\(environment))" }
}
