package import APNSCore
package import Courier
import Crypto
package import Foundation
package import HeraldSupport
import Synchronization

/// The device tokens the gateway has issued: which app (bundle ID) and environment each belongs to, and whether the
/// token stopped being valid (the app was removed: `410 Unregistered`; the token expired: `410 ExpiredToken`).
///
/// Every token made here comes with a device secret, shown once: a device proves it on the courier's `register`, so
/// a token can be claimed only by the device that owns it. Only the secret's SHA-256 is kept.
package final class DeviceRegistry: Sendable {
    /// Notified when a token is made, changed or made invalid: what a test (or a view) following the registry
    /// waits on.
    package let changes = WorkSignal()

    /// One issued token.
    package struct Device: Sendable, Hashable {
        package let token: APNSDeviceToken
        package let bundleID: String
        package let environment: APNSEnvironment
        /// Why and since when pushes to the token get 410, if they do.
        package var invalidation: Invalidation?
        /// The SHA-256 of the device secret; `nil` for a token from a journal older than secrets (the first device
        /// to claim it gets a secret).
        package var secretDigest: DeviceSecretDigest?

        package init(
            token: APNSDeviceToken, bundleID: String, environment: APNSEnvironment, invalidation: Invalidation? = nil,
            secretDigest: DeviceSecretDigest? = nil
        ) {
            self.token = token
            self.bundleID = bundleID
            self.environment = environment
            self.invalidation = invalidation
            self.secretDigest = secretDigest
        }
    }

    /// Who asks for a token, and so what they must prove.
    package enum Claim: Sendable {
        /// The admin API or the gateway's own code: an existing token is answered without proof (and without its
        /// secret, which is never kept).
        case trusted
        /// A device on the courier: an existing token needs its secret.
        case device(secret: String?)
    }

    /// What a registration answers: the device, and its secret when this registration made one.
    package struct Registration: Sendable {
        package let device: Device
        /// The device secret, only when the token (or its secret) was made now: the one time it is seen.
        package let secret: String?
        /// The device's token.
        package var token: APNSDeviceToken { device.token }
    }

    /// A token that is no longer valid.
    package struct Invalidation: Sendable, Hashable {
        /// `Unregistered` (the app was removed) or `ExpiredToken`.
        package let reason: APNSReason
        /// The moment the 410 body's `timestamp` reports.
        package let since: Date

        package init(reason: APNSReason, since: Date) {
            self.reason = reason
            self.since = since
        }
    }

    private let devices: Mutex<DeviceTable>
    private let changed: @Sendable ([Device], _ replacing: Bool) throws(GatewayDataError) -> Void

    /// A registry holding `devices`, calling `changed` after every registration and invalidation (for persistence;
    /// `replacing` says whether the tokens had a record before; the devices of ``register(count:bundleID:environment:)``
    /// come in one call).
    /// When `changed` throws (the journal cannot be written), the change is undone and the error thrown to the caller:
    /// a token is never handed out, nor a token's invalidation acknowledged, unless it is on disk.
    package init(
        devices: DeviceTable = DeviceTable(),
        changed: @escaping @Sendable ([Device], _ replacing: Bool) throws(GatewayDataError) -> Void = { _, _ in }
    ) {
        self.devices = Mutex(devices)
        self.changed = changed
    }

    /// Issues a token for an app in an environment: a new random 32-byte one, or `token` when given (a device keeping
    /// the token it had, or a test that wants a known one).
    ///
    /// - Throws: ``GatewayDataError`` when `token` is already issued to another app or environment, when a device
    ///   claims an existing token without its secret, or when the journal cannot be written (``isStorageFailure``).
    @discardableResult
    package func register(
        bundleID: String, environment: APNSEnvironment, token: APNSDeviceToken? = nil, claim: Claim = .trusted
    ) throws(GatewayDataError) -> Registration {
        let secret = Self.makeSecret()
        let fresh = Device(
            token: token ?? Self.randomToken(), bundleID: bundleID, environment: environment,
            secretDigest: Self.digest(secret))
        let outcome = devices.withLock { devices -> Result<(Registration, previous: Device?), GatewayDataError> in
            guard var existing = devices[fresh.token] else {
                devices[fresh.token] = fresh
                return .success((Registration(device: fresh, secret: secret), nil))
            }
            let previous = existing
            guard existing.bundleID == bundleID, existing.environment == environment else {
                return .failure(
                    GatewayDataError(
                        "token \(fresh.token.logPrefix)… belongs to \(existing.bundleID) (\(existing.environment))"))
            }
            guard case .device(let given) = claim else {
                return .success((Registration(device: existing, secret: nil), previous))
            }
            guard let expected = existing.secretDigest else {
                existing.secretDigest = fresh.secretDigest
                devices[fresh.token] = existing
                return .success((Registration(device: existing, secret: secret), previous))
            }
            guard let given, Self.digest(given) == expected else {
                return .failure(
                    GatewayDataError(
                        "token \(fresh.token.logPrefix)… belongs to another device: send the \"secret\" the gateway "
                            + "gave with it, or register without \"token\" for a new one"))
            }
            return .success((Registration(device: existing, secret: nil), previous))
        }
        let (registration, previous) = try outcome.get()
        if registration.secret != nil {
            try keep(registration.device, undo: previous)
            changes.notify()
        }
        return registration
    }

    /// Issues `count` new random tokens for an app in an environment, kept with one journal write.
    ///
    /// - Throws: ``GatewayDataError`` (``isStorageFailure``) when the journal cannot be written: none is issued.
    package func register(count: Int, bundleID: String, environment: APNSEnvironment) throws(GatewayDataError)
        -> [Registration]
    {
        var registrations: [Registration] = []
        registrations.reserveCapacity(count)
        while registrations.count < count {
            // Secrets and digests are made outside the lock, which pushes take for every lookup.
            let fresh = (registrations.count..<count).map { _ in
                let secret = Self.makeSecret()
                let device = Device(
                    token: Self.randomToken(), bundleID: bundleID, environment: environment,
                    secretDigest: Self.digest(secret))
                return Registration(device: device, secret: secret)
            }
            devices.withLock { devices in
                // A random 32-byte token already issued: practically never; another is drawn in the next round.
                for registration in fresh where devices[registration.token] == nil {
                    devices[registration.token] = registration.device
                    registrations.append(registration)
                }
            }
        }
        do {
            try changed(registrations.map(\.device), false)
        } catch {
            devices.withLock { devices in
                for registration in registrations where devices[registration.token] == registration.device {
                    devices[registration.token] = nil
                }
            }
            throw error
        }
        changes.notify()
        return registrations
    }

    /// Marks a token invalid from `date` on; `false` for an unknown token.
    ///
    /// - Throws: ``GatewayDataError`` when the journal cannot be written; the token stays as it was.
    @discardableResult
    package func invalidate(_ token: APNSDeviceToken, reason: APNSReason = .unregistered, at date: Date)
        throws(GatewayDataError) -> Bool
    {
        let change = devices.withLock { devices -> (Device, previous: Device)? in
            guard let previous = devices[token] else { return nil }
            devices[token]?.invalidation = Invalidation(reason: reason, since: date)
            return devices[token].map { ($0, previous) }
        }
        guard let (device, previous) = change else { return false }
        try keep(device, undo: previous)
        changes.notify()
        return true
    }

    /// Writes a change through `changed`; when that fails, puts back what was there before (a token made now is
    /// removed again) and throws.
    private func keep(_ device: Device, undo previous: Device?) throws(GatewayDataError) {
        do {
            try changed([device], previous != nil)
        } catch {
            devices.withLock { devices in
                // Only our own change is undone: another registration may have changed the token since.
                if devices[device.token] == device { devices[device.token] = previous }
            }
            throw error
        }
    }

    /// The device a token belongs to.
    package func device(for token: APNSDeviceToken) -> Device? {
        devices.withLock { $0[token] }
    }

    /// Every issued token.
    package var all: [Device] { devices.withLock { Array($0) } }

    /// Every issued token as it is now, taken without copying (the table's storage is shared until it changes).
    package var snapshot: DeviceTable { devices.withLock { $0 } }

    /// How many tokens were issued.
    package var count: Int { devices.withLock { $0.count } }

    private static func makeSecret() -> String {
        "ds_" + Data(RandomPool.bytes(32)).base64URLEncodedString
    }

    private static func digest(_ secret: String) -> DeviceSecretDigest {
        DeviceSecretDigest(SHA256.hash(data: Data(secret.utf8)))
    }

    private static func randomToken() -> APNSDeviceToken {
        try! APNSDeviceToken(bytes: Data(RandomPool.bytes(32)))
    }
}
