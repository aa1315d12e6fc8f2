public import APNSCore
public import Foundation
import Synchronization

/// The device tokens the gateway has issued: which app (bundle ID) and environment each belongs to, and whether the
/// token stopped being valid (the app was removed: `410 Unregistered`; the token expired: `410 ExpiredToken`).
public final class DeviceRegistry: Sendable {
    /// One issued token.
    public struct Device: Sendable, Hashable {
        public let token: APNSDeviceToken
        public let bundleID: String
        public let environment: APNSEnvironment
        /// Why and since when pushes to the token get 410, if they do.
        public var invalidation: Invalidation?

        public init(
            token: APNSDeviceToken, bundleID: String, environment: APNSEnvironment, invalidation: Invalidation? = nil
        ) {
            self.token = token
            self.bundleID = bundleID
            self.environment = environment
            self.invalidation = invalidation
        }
    }

    /// A token that is no longer valid.
    public struct Invalidation: Sendable, Hashable {
        /// `Unregistered` (the app was removed) or `ExpiredToken`.
        public let reason: APNSReason
        /// The moment the 410 body's `timestamp` reports.
        public let since: Date

        public init(reason: APNSReason, since: Date) {
            self.reason = reason
            self.since = since
        }
    }

    private let devices: Mutex<[Data: Device]>
    private let changed: @Sendable (Device) -> Void

    /// A registry holding `devices`, calling `changed` after every registration and invalidation (for persistence).
    public init(devices: [Device] = [], changed: @escaping @Sendable (Device) -> Void = { _ in }) {
        self.devices = Mutex(Dictionary(devices.map { ($0.token.bytes, $0) }, uniquingKeysWith: { $1 }))
        self.changed = changed
    }

    /// Issues a token for an app in an environment: a new random 32-byte one, or `token` when given (a device keeping
    /// the token it had, or a test that wants a known one).
    ///
    /// - Throws: ``GatewayDataError`` when `token` is already issued to another app or environment.
    @discardableResult
    public func register(
        bundleID: String, environment: APNSEnvironment, token: APNSDeviceToken? = nil
    ) throws(GatewayDataError) -> Device {
        let device = Device(token: token ?? Self.randomToken(), bundleID: bundleID, environment: environment)
        let existing = devices.withLock { devices -> Device? in
            if let existing = devices[device.token.bytes] { return existing }
            devices[device.token.bytes] = device
            return nil
        }
        if let existing {
            guard existing.bundleID == bundleID, existing.environment == environment else {
                throw GatewayDataError(
                    "token \(device.token.logPrefix)… belongs to \(existing.bundleID) (\(existing.environment))")
            }
            return existing
        }
        changed(device)
        return device
    }

    /// Marks a token invalid from `date` on; `false` for an unknown token.
    @discardableResult
    public func invalidate(_ token: APNSDeviceToken, reason: APNSReason = .unregistered, at date: Date) -> Bool {
        let device = devices.withLock { devices -> Device? in
            devices[token.bytes]?.invalidation = Invalidation(reason: reason, since: date)
            return devices[token.bytes]
        }
        guard let device else { return false }
        changed(device)
        return true
    }

    /// The device a token belongs to.
    public func device(for token: APNSDeviceToken) -> Device? {
        devices.withLock { $0[token.bytes] }
    }

    /// Every issued token.
    public var all: [Device] { devices.withLock { Array($0.values) } }

    private static func randomToken() -> APNSDeviceToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return try! APNSDeviceToken(bytes: Data(bytes))
    }
}
