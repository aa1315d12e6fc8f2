public import Foundation

/// A device token registered for an app, as the API shows it.
public struct DeviceRecord: Codable, Sendable, Hashable {
    /// The APNs device token, hex.
    public var token: String
    public var userID: String?
    public var tags: [String]
    public var locale: String?
    /// An IANA time zone such as `Asia/Shanghai`, for daily sends at a local time.
    public var timeZone: String?
    public var appVersion: String?
    /// The device's X25519 public key (base64) for end-to-end encrypted fields.
    public var publicKey: String?
    /// `false` once APNs answered `410 Unregistered` or `BadDeviceToken` for it.
    public var active: Bool
    public var deactivatedAt: Date?
    public var deactivationReason: String?
    public var registeredAt: Date
    public var updatedAt: Date
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
