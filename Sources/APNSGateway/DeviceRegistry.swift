public import APNSCore
public import Foundation
import Synchronization

/// The device tokens the gateway has issued: which app (bundle ID) and environment each belongs to, and when an app
/// was removed (later pushes get `410 Unregistered` with that time).
public final class DeviceRegistry: Sendable {
    /// One issued token.
    public struct Device: Sendable, Hashable {
        public let token: APNSDeviceToken
        public let bundleID: String
        public let environment: APNSEnvironment
        /// When the app was removed, if it was.
        public var unregisteredAt: Date?
    }

    private let devices = Mutex<[Data: Device]>([:])

    public init() {}

    /// Issues a new 32-byte token for an app in an environment.
    public func register(bundleID: String, environment: APNSEnvironment) -> Device {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let token = try! APNSDeviceToken(bytes: Data(bytes))
        let device = Device(token: token, bundleID: bundleID, environment: environment)
        devices.withLock { $0[token.bytes] = device }
        return device
    }

    /// Marks the token's app as removed at `date`; `false` for an unknown token.
    @discardableResult
    public func unregister(_ token: APNSDeviceToken, at date: Date) -> Bool {
        devices.withLock { devices in
            guard devices[token.bytes] != nil else { return false }
            devices[token.bytes]?.unregisteredAt = date
            return true
        }
    }

    /// The device a token belongs to.
    public func device(for token: APNSDeviceToken) -> Device? {
        devices.withLock { $0[token.bytes] }
    }
}
