package import Foundation

/// An app the provider sends for, as the API shows it: never its secrets.
package struct ProviderApp: Codable, Sendable, Hashable {
    /// The provider's identifier for the app.
    package var id: String
    /// A name for people.
    package var name: String
    /// The app's bundle ID, the `apns-topic` of its alert notifications.
    package var bundleID: String
    /// `development` or `production`: which APNs environment its device tokens belong to.
    package var environment: String
    /// Where notifications go: Apple's host for the environment, or a URL such as the local gateway's.
    package var endpoint: String
    /// Whether an extra trusted CA is configured for ``endpoint``.
    package var hasCustomCA: Bool
    /// How the provider authenticates to APNs, without the secret.
    package var authentication: AuthenticationSummary
    /// The key devices use to register and report (not a secret; it ships inside the app).
    package var publishableKey: String
    /// The app's own server, which receives every user response.
    package var webhookURL: String?
    /// How many webhook events one POST to ``webhookURL`` may carry: `1` (the default) sends each alone; more, and
    /// every POST carries a batch (`{"events": [...]}`) of up to this many.
    package var webhookBatch = 1
    /// The most ``webhookBatch`` may be: a sender leases 64 events at a time.
    package static let maxWebhookBatch = 64
    /// At most this many notifications per second for the app; `0` means no limit.
    package var rateLimit: Int
    /// The quiet window of its alerts in each device's time zone; `nil` for none.
    package var quietHours: QuietHours? = nil
    /// How many alerts of each category a user or device may get in a window (``FrequencyCap``); `nil` for none.
    package var frequencyCaps: [FrequencyCap]? = nil
    /// Where the app's channel management requests go: Apple's management host for its environment
    /// when the app sends to Apple; for another endpoint (the local gateway) its management port, on the same host.
    package var channelEndpoint: String? = nil
    /// When its sending was paused (`POST /v1/apps/{id}/pause`): its deliveries wait in the queue, spending no
    /// attempt, until it is resumed.
    package var pausedAt: Date? = nil
    /// Why the provider paused it itself: APNs refused its credentials or topic with this reason
    /// (`InvalidProviderToken`, ...); `nil` when it is not paused or an operator paused it.
    package var pauseReason: String? = nil
    /// How long its records are kept; a field left out takes the provider's default.
    package var retention = RetentionDays()
    package var createdAt: Date
    package var updatedAt: Date

    /// Every stored property, as given.
    package init(
        id: String, name: String, bundleID: String, environment: String, endpoint: String, hasCustomCA: Bool,
        authentication: AuthenticationSummary, publishableKey: String, webhookURL: String? = nil,
        webhookBatch: Int = 1, rateLimit: Int, quietHours: QuietHours? = nil, frequencyCaps: [FrequencyCap]? = nil,
        channelEndpoint: String? = nil,
        pausedAt: Date? = nil,
        pauseReason: String? = nil,
        retention: RetentionDays = RetentionDays(),
        createdAt: Date, updatedAt: Date
    ) {
        self.pausedAt = pausedAt
        self.pauseReason = pauseReason
        self.retention = retention
        self.id = id
        self.name = name
        self.bundleID = bundleID
        self.environment = environment
        self.endpoint = endpoint
        self.hasCustomCA = hasCustomCA
        self.authentication = authentication
        self.publishableKey = publishableKey
        self.webhookURL = webhookURL
        self.webhookBatch = webhookBatch
        self.rateLimit = rateLimit
        self.quietHours = quietHours
        self.frequencyCaps = frequencyCaps
        self.channelEndpoint = channelEndpoint
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The public part of an app's APNs credentials.
    package struct AuthenticationSummary: Codable, Sendable, Hashable {
        /// `token` (a `.p8` key) or `certificate`.
        package var kind: String
        package var teamID: String?
        package var keyID: String?
        /// `SHA256:` and the first 16 hex digits of the SHA-256 of the signing key's public key (DER), so a replaced key
        /// can be told from the old one without showing either; `nil` for a certificate or an app made before.
        package var fingerprint: String?

        /// Every stored property, as given.
        package init(kind: String, teamID: String? = nil, keyID: String? = nil, fingerprint: String? = nil) {
            self.kind = kind
            self.teamID = teamID
            self.keyID = keyID
            self.fingerprint = fingerprint
        }
    }
}
