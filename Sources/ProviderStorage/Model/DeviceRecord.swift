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
    /// What the app's server said of the device's person (`firstName`, ...), which a notification's text names as
    /// `{{firstName|there}}`; set with the API key only.
    package var attributes: [String: String]?
    /// `false` once APNs answered `410 Unregistered` or `BadDeviceToken` for it.
    package var active: Bool
    package var deactivatedAt: Date?
    package var deactivationReason: String?
    package var registeredAt: Date
    package var updatedAt: Date
}

/// The body of `POST /v1/devices`: what an app reports from `didRegisterForRemoteNotificationsWithDeviceToken`.
package struct DeviceInput: StrictInput, Sendable {
    package var token: String
    package var userID: String?
    package var tags: [String]?
    package var locale: String?
    package var timeZone: String?
    package var appVersion: String?
    package var publicKey: String?
    /// What a notification's text may name (`{{firstName|there}}`): set with the app's API key, never the
    /// publishable key; replaces the device's whole map when given.
    package var attributes: [String: String]?
    /// Checked against the app's bundle ID when given (a simulated device sends it).
    package var bundleID: String?
    /// Checked against the app's environment when given.
    package var environment: String?
    /// Proof from the app's server (`POST /v1/users/{userID}/token`) that a publishable-key registration may bind
    /// `userID` or change a device that belongs to a user.
    package var userToken: String?
    /// The token this device had before, when APNs gave its app a new one: that registration is deactivated
    /// (reason `replaced`), so sends stop counting a device that no longer exists.
    package var replaces: String?

    /// A registration of `token` alone.
    package init(token: String) {
        self.token = token
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case token, userID, tags, locale, timeZone, appVersion, publicKey, bundleID, environment, userToken, replaces,
            attributes
    }

    package static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
}
