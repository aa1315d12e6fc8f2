package import Foundation

/// A device token registered for an app, as the API shows it.
package struct DeviceRecord: Codable, Sendable, Hashable {
    /// The APNs device token, hex.
    package var token: String
    package var userID: String?
    package var tags: [String]
    package var locale: String?
    /// An IANA time zone such as `Asia/Shanghai`, for daily sends at a local time.
    package var timeZone: String?
    package var appVersion: String?
    /// The device's X25519 public key (base64) for end-to-end encrypted fields.
    package var publicKey: String?
    /// `false` once APNs answered `410 Unregistered` or `BadDeviceToken` for it.
    package var active: Bool
    package var deactivatedAt: Date?
    package var deactivationReason: String?
    package var registeredAt: Date
    package var updatedAt: Date
}

/// The body of `POST /v1/devices`: what an app reports from `didRegisterForRemoteNotificationsWithDeviceToken`.
struct DeviceInput: StrictInput, Sendable {
    var token: String
    var userID: String?
    var tags: [String]?
    var locale: String?
    var timeZone: String?
    var appVersion: String?
    var publicKey: String?
    /// Checked against the app's bundle ID when given (a simulated device sends it).
    var bundleID: String?
    /// Checked against the app's environment when given.
    var environment: String?
    /// Proof from the app's server (`POST /v1/users/{userID}/token`) that a publishable-key registration may bind
    /// `userID` or change a device that belongs to a user.
    var userToken: String?
    /// The token this device had before, when APNs gave its app a new one: that registration is deactivated
    /// (reason `replaced`), so sends stop counting a device that no longer exists.
    var replaces: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, userID, tags, locale, timeZone, appVersion, publicKey, bundleID, environment, userToken, replaces
    }

    static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
}
