public import Foundation

/// An app the provider sends for, as the API shows it: never its secrets.
public struct ProviderApp: Codable, Sendable, Hashable {
    /// The provider's identifier for the app.
    public var id: String
    /// A name for people.
    public var name: String
    /// The app's bundle ID, the `apns-topic` of its alert notifications.
    public var bundleID: String
    /// `development` or `production`: which APNs environment its device tokens belong to.
    public var environment: String
    /// Where notifications go: Apple's host for the environment, or a URL such as the local gateway's.
    public var endpoint: String
    /// Whether an extra trusted CA is configured for ``endpoint``.
    public var hasCustomCA: Bool
    /// How the provider authenticates to APNs, without the secret.
    public var authentication: AuthenticationSummary
    /// The key devices use to register and report (not a secret; it ships inside the app).
    public var publishableKey: String
    /// The app's own server, which receives every user response.
    public var webhookURL: String?
    /// At most this many notifications per second for the app; `0` means no limit.
    public var rateLimit: Int
    /// Where the app's channel management requests go (reference K.1): Apple's management host for its environment
    /// when the app sends to Apple; for another endpoint (the local gateway) its management port, on the same host.
    public var channelEndpoint: String? = nil
    public var createdAt: Date
    public var updatedAt: Date

    /// The public part of an app's APNs credentials.
    public struct AuthenticationSummary: Codable, Sendable, Hashable {
        /// `token` (a `.p8` key) or `certificate`.
        public var kind: String
        public var teamID: String?
        public var keyID: String?
        /// `SHA256:` and the first 16 hex digits of the SHA-256 of the signing key's public key (DER), so a replaced key
        /// can be told from the old one without showing either; `nil` for a certificate or an app made before.
        public var fingerprint: String?
    }
}
