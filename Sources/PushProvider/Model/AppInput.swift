import APNSCore
import ProviderStorage

/// The body of `POST /v1/apps` and `PATCH /v1/apps/{id}`: every field optional on update.
struct AppInput: StrictInput, Sendable {
    var name: String?
    var bundleID: String?
    var environment: String?
    /// `production`, `sandbox`/`development` (Apple's hosts) or an `https://` URL.
    var endpoint: String?
    /// A PEM CA to trust for ``endpoint`` (the local gateway's `ca.pem`).
    var caPEM: String?
    var authentication: Authentication?
    var webhookURL: String?
    /// How many events one POST to ``webhookURL`` may carry (``ProviderApp/webhookBatch``): 1 to
    /// ``ProviderApp/maxWebhookBatch``.
    var webhookBatch: Int?
    var rateLimit: Int?
    /// The quiet window of the app's alerts in each device's time zone (``QuietHours``); `""` removes it.
    var quietHours: JSONValue?
    /// How many alerts of each category one user or device may get in a window (``FrequencyCap``): a list that
    /// replaces the app's; `[]` or `""` removes them.
    var frequencyCaps: JSONValue?
    /// Where channel management requests go when ``endpoint`` is not Apple's: an `https://` URL on the same host (the
    /// local gateway's `--manage-port`); empty to remove.
    var channelEndpoint: String?
    /// How long the app's records are kept, in days (``RetentionDays``): replaces the app's whole setting; a field
    /// left out of it takes the provider's default (`{}`: every default).
    var retention: RetentionDays?

    /// The `authentication` object.
    struct Authentication: StrictInput, Sendable {
        /// `token` or `certificate`.
        var kind: String
        var teamID: String?
        var keyID: String?
        /// The `.p8` key (PEM).
        var privateKey: String?
        /// Certificate and private key, PEM.
        var certificate: String?
        /// A `.p12` file, base64.
        var pkcs12: String?
        var password: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case kind, teamID, keyID, privateKey, certificate, pkcs12, password
        }

        static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, bundleID, environment, endpoint, caPEM, authentication, webhookURL, webhookBatch, rateLimit,
            quietHours, frequencyCaps, channelEndpoint, retention
    }

    static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
    static var nested: [String: any StrictInput.Type] {
        ["authentication": Authentication.self, "retention": RetentionDays.self]
    }
}
