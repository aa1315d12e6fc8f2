import APNSCore
import CategoryConfig
import Foundation
import HTTPTypes
import HeraldSupport
import HeraldTime
import Hummingbird
import Logging
import NIOSSL
import ProviderStorage

/// What the app routes, `herald up` and the console do with apps: make and change them and their categories, pause,
/// resume and delete them. It holds what those need: the store, the clock, the secrets credentials are sealed with,
/// the endpoints and webhook hosts an app may use, and the engine (to wake its workers when an app resumes).
package struct AppOperations: Sendable {
    let store: any ProviderStore
    let clock: any WallClock
    let secrets: SecretBox
    /// APNs-compatible endpoints other than Apple's an API key may set (``PushProviderService/Configuration/allowedEndpoints``).
    let allowedEndpoints: [String]
    /// Where webhooks may go.
    let webhookPolicy: OutboundPolicy
    let engine: DeliveryEngine
    /// The apps of publishable keys looked up lately: an app changed here is forgotten there at once.
    let publishableKeys: PublishableKeyCache
    /// Notified at every change the provider records.
    let changes: WorkSignal
    let logger: Logger

    /// The provider's time.
    func now() -> Date { clock.currentDate }

    /// Creates an app from a request body; returns it with its first API key and that key's ID.
    ///
    /// - Throws: ``ProviderError`` naming the field that is missing or wrong.
    func createApp(_ input: AppInput) async throws(ProviderError) -> (ProviderApp, String, String) {
        let now = now()
        var app = StoredApp(
            app: ProviderApp(
                id: "app_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""),
                name: "", bundleID: "", environment: "development", endpoint: "", hasCustomCA: false,
                authentication: .init(kind: "token"), publishableKey: KeyMaker.make(prefix: "pk_"), webhookURL: nil,
                rateLimit: 0, createdAt: now, updatedAt: now),
            sealedCredentials: Data(), caPEM: nil, categories: Data("{}".utf8), categoriesVersion: 1)
        try apply(input, to: &app, creating: true, byAdmin: true)
        let key = KeyMaker.make(prefix: "sk_")
        let keyID = "key_" + UUID().uuidString.prefix(8).lowercased()
        try await store.insertApp(app, apiKeyID: keyID, apiKeyHash: KeyMaker.hash(key))
        return (app.app, key, keyID)
    }

    /// Applies the fields given in `input`; on create the required ones must be there. An endpoint other than Apple's
    /// or one on ``PushProviderService/Configuration/allowedEndpoints`` needs the admin (`byAdmin`); a new endpoint needs the credentials
    /// again in the same request, since credentials are bound to the endpoint they were given for.
    func apply(_ input: AppInput, to app: inout StoredApp, creating: Bool, byAdmin: Bool) throws(ProviderError) {
        try ProviderError.refuseNUL(input.name, field: "name")
        try ProviderError.refuseNUL(input.endpoint, field: "endpoint")
        try ProviderError.refuseNUL(input.webhookURL, field: "webhookURL")
        try ProviderError.refuseNUL(input.channelEndpoint, field: "channelEndpoint")
        if let name = input.name { app.app.name = name }
        if let retention = input.retention {
            try retention.check(prefix: "retention")
            app.app.retention = retention
        }
        if let bundleID = input.bundleID {
            guard APNSTopic.problem(with: bundleID) == nil, !bundleID.isEmpty else {
                throw .field("bundleID", "give the app's bundle ID, such as com.example.app")
            }
            app.app.bundleID = bundleID
        } else if creating {
            throw .field("bundleID", "is required: the app's bundle ID, such as com.example.app")
        }
        if creating, input.name == nil { app.app.name = app.app.bundleID }
        var movedBetweenApplesHosts = false
        if let environment = input.environment {
            guard let parsed = APNSEnvironment(name: environment) else {
                throw .field("environment", "must be development or production")
            }
            // An app on Apple's host of its old environment moves to the new one's: its credentials were given for
            // Apple, and stay with Apple.
            let previous = APNSEnvironment(rawValue: app.app.environment)
            if !creating, input.endpoint == nil, parsed != previous, app.app.endpoint == "https://" + previous.host {
                app.app.endpoint = "https://" + parsed.host
                movedBetweenApplesHosts = true
            }
            app.app.environment = parsed.rawValue
        }
        if let endpoint = input.endpoint {
            let previous = app.app.endpoint
            app.app.endpoint = try checkedEndpoint(endpoint, byAdmin: byAdmin)
            if !creating, app.app.endpoint != previous, input.authentication == nil {
                throw .field(
                    "endpoint",
                    "moving the app to \(app.app.endpoint) needs its credentials again in the same request "
                        + "(\"authentication\"): provider tokens go only to the endpoint they were given for")
            }
        } else if creating {
            app.app.endpoint = "https://" + APNSEnvironment(rawValue: app.app.environment).host
        }
        if let caPEM = input.caPEM {
            let trusted = try Self.checkedCertificateAuthority(caPEM)
            // The CA decides who may read the provider token the credentials sign: trusting a new one is a change to
            // where they go, so it needs them again, as a new endpoint does (an API key alone must not be able to
            // send the team's token to a server of its choosing).
            if !creating, trusted != app.caPEM, input.authentication == nil {
                throw .field(
                    "caPEM",
                    "trusting another CA for \(app.app.endpoint) needs the app's credentials again in the same request "
                        + "(\"authentication\"): they are sent only to servers the CA they were given with vouches for")
            }
            app.caPEM = trusted
            app.app.hasCustomCA = app.caPEM != nil
        }
        if let authentication = input.authentication {
            let credentials = try AppCredentials(authentication)
            app.app.authentication = credentials.summary
            app.sealedCredentials = try BoundCredentials(credentials: credentials, endpoint: app.app.endpoint)
                .sealed(with: secrets)
        } else if creating {
            throw .field("authentication", "is required: {\"kind\": \"token\", \"teamID\", \"keyID\", \"privateKey\"}")
        } else if movedBetweenApplesHosts {
            var bound = try BoundCredentials.open(app.sealedCredentials, with: secrets)
            bound.endpoint = app.app.endpoint
            app.sealedCredentials = try bound.sealed(with: secrets)
        }
        if let webhookURL = input.webhookURL {
            let url = URL(string: webhookURL)
            guard webhookURL.isEmpty || ["http", "https"].contains(url?.scheme?.lowercased()) else {
                throw .field("webhookURL", "must be an http(s) URL, or empty to remove")
            }
            if let url, let problem = webhookPolicy.problem(with: url) { throw .field("webhookURL", problem) }
            app.app.webhookURL = webhookURL.isEmpty ? nil : webhookURL
        }
        if let batch = input.webhookBatch {
            guard (1...ProviderApp.maxWebhookBatch).contains(batch) else {
                throw .field(
                    "webhookBatch",
                    "must be 1 (each event in its own POST) to \(ProviderApp.maxWebhookBatch) (events a POST), not \(batch)"
                )
            }
            app.app.webhookBatch = batch
        }
        switch input.quietHours {
        case nil: break
        case .string("")?: app.app.quietHours = nil
        case let value?: app.app.quietHours = try QuietHours.parse(value, field: "quietHours")
        }
        if let caps = input.frequencyCaps {
            app.app.frequencyCaps = try FrequencyCap.parse(caps, field: "frequencyCaps")
        }
        if let rateLimit = input.rateLimit {
            guard rateLimit >= 0 else { throw .field("rateLimit", "must be 0 (no limit) or a positive number") }
            app.app.rateLimit = rateLimit
        }
        if let channelEndpoint = input.channelEndpoint {
            app.app.channelEndpoint = channelEndpoint.isEmpty ? nil : channelEndpoint
            if let url = URL(string: channelEndpoint), !channelEndpoint.isEmpty, !byAdmin,
                !allowedEndpoints.contains(where: { Self.origin(of: $0) == Self.origin(of: url) })
            {
                // Any port of the endpoint's host would let an API key make the provider connect wherever on it.
                throw .forbidden(
                    "an API key may set channelEndpoint only to an endpoint the provider's admin allowed (herald serve "
                        + "--allow-endpoint); \(channelEndpoint) is not one: ask the admin, or use the admin token")
            }
        }
        if let channelEndpoint = app.app.channelEndpoint {
            try Self.checkChannelEndpoint(channelEndpoint, endpoint: app.app.endpoint)
        }
    }

    /// The CA to trust from a `caPEM` field: `nil` for an empty one (Apple's roots only), else the text once every
    /// certificate in it parses.
    ///
    /// - Throws: ``ProviderError/invalid(field:message:)`` naming `caPEM` when it holds no certificate or one that
    ///   does not parse.
    static func checkedCertificateAuthority(_ pem: String) throws(ProviderError) -> String? {
        guard !pem.isEmpty else { return nil }
        guard pem.contains("-----BEGIN CERTIFICATE-----") else {
            throw .field("caPEM", "must be a PEM certificate (-----BEGIN CERTIFICATE-----), or empty to remove")
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        } catch {
            throw .field("caPEM", "is not a PEM certificate that parses (\(error)); give the CA's ca.pem as it is")
        }
        guard !certificates.isEmpty else {
            throw .field("caPEM", "holds no certificate; give the CA's ca.pem as it is, or empty to remove")
        }
        return pem
    }

    /// A channel endpoint must be on the host the app's credentials are bound to (only the port differs): provider
    /// tokens go to no other address.
    static func checkChannelEndpoint(_ text: String, endpoint: String) throws(ProviderError) {
        guard let url = URL(string: text), url.scheme == "https", let host = url.host?.lowercased() else {
            throw .field("channelEndpoint", "must be an https:// URL such as https://127.0.0.1:2195")
        }
        guard host == URL(string: endpoint)?.host?.lowercased() else {
            throw .field(
                "channelEndpoint",
                "must be on the same host as the endpoint (\(endpoint)), which the credentials are bound to; "
                    + "\(text) is not")
        }
    }

    /// The endpoint `text` names (`production`, `sandbox` or an https URL), if this caller may point an app there.
    private func checkedEndpoint(_ text: String, byAdmin: Bool) throws(ProviderError) -> String {
        switch text.lowercased() {
        case "production": return "https://" + APNSEnvironment.production.host
        case "sandbox", "development": return "https://" + APNSEnvironment.development.host
        default: break
        }
        guard let url = URL(string: text), url.scheme == "https", let host = url.host?.lowercased() else {
            throw .field("endpoint", "must be production, sandbox or an https:// URL such as https://127.0.0.1:2197")
        }
        let apple = [APNSEnvironment.production.host, APNSEnvironment.development.host].contains(host)
        let origin = Self.origin(of: url)
        guard apple || byAdmin || allowedEndpoints.contains(where: { Self.origin(of: $0) == origin })
        else {
            throw .forbidden(
                "an API key may point an app only at Apple's hosts or an endpoint the provider's admin allowed "
                    + "(herald serve --allow-endpoint); \(text) is neither")
        }
        return text
    }

    /// `https://host:port` of a URL, the port written out, for comparing endpoints.
    static func origin(of url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? 443)"
    }

    private static func origin(of text: String) -> String? {
        URL(string: text).map(origin(of:))
    }

    /// Checks and stores an app's `NotificationConfig` JSON; the app as updated.
    ///
    /// - Throws: ``ProviderError/invalid(field:message:)`` naming what is wrong in the JSON.
    func setCategories(of app: StoredApp, notificationConfig json: Data) async throws(ProviderError) -> StoredApp {
        let config: NotificationConfig
        do {
            config = try NotificationConfig(data: json)
        } catch {
            throw .invalid(field: "NotificationConfig", message: "\(error)")
        }
        let path = "NotificationConfig"
        for (key, category) in config.categories {
            try ProviderError.refuseInvisible(key, field: "\(path).UNNotificationCategory")
            try ProviderError.refuseInvisible(
                category.identifier, field: "\(path).UNNotificationCategory.\(key).identifier")
        }
        for (key, action) in config.actions {
            try ProviderError.refuseInvisible(key, field: "\(path).UNNotificationAction")
            try ProviderError.refuseInvisible(
                action.identifier, field: "\(path).UNNotificationAction.\(key).identifier")
        }
        for category in config.categories.values {
            for action in category.actions where config.actions[action] == nil {
                throw .invalid(
                    field: "NotificationConfig.UNNotificationCategory.\(category.identifier)",
                    message: "names action \(action), which UNNotificationAction does not define")
            }
        }
        var updated = app
        updated.categories = config.encoded()
        updated.categoriesVersion = try await store.setCategories(
            appID: app.app.id, json: updated.categories, at: now())
        return updated
    }
}
