/// The settings of an app to create or bring up to date in code rather than through the API (for `herald up`,
/// ``AppOperations/ensure(_:)``).
package struct AppSettings: Sendable {
    package var name: String
    package var bundleID: String
    package var environment: String
    package var endpoint: String
    package var caPEM: String?
    package var teamID: String
    package var keyID: String
    package var privateKeyPEM: String
    /// The gateway's channel management URL (its `--manage-port`), for channels made through the provider.
    package var channelEndpoint: String?

    package init(
        name: String, bundleID: String, environment: String, endpoint: String, caPEM: String?, teamID: String,
        keyID: String, privateKeyPEM: String, channelEndpoint: String? = nil
    ) {
        self.name = name
        self.bundleID = bundleID
        self.environment = environment
        self.endpoint = endpoint
        self.caPEM = caPEM
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
        self.channelEndpoint = channelEndpoint
    }

    /// The settings as the API's app body.
    var input: AppInput {
        AppInput(
            name: name, bundleID: bundleID, environment: environment, endpoint: endpoint, caPEM: caPEM ?? "",
            authentication: .init(kind: "token", teamID: teamID, keyID: keyID, privateKey: privateKeyPEM),
            webhookURL: nil, webhookBatch: nil, rateLimit: nil, quietHours: nil, frequencyCaps: nil,
            channelEndpoint: channelEndpoint ?? "")
    }
}
