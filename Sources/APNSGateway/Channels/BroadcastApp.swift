package import APNSCore

/// An app in one environment: channels are counted, and broadcast is switched on or off, per app and environment.
package struct BroadcastApp: Sendable, Hashable, CustomStringConvertible {
    package let bundleID: String
    package let environment: APNSEnvironment

    package init(bundleID: String, environment: APNSEnvironment) {
        self.bundleID = bundleID
        self.environment = environment
    }

    package var description: String { "\(bundleID) (\(environment))" }
}
