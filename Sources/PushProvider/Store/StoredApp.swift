import Foundation

/// An app row: what the API shows plus the sealed credentials, the endpoint's CA and the categories.
struct StoredApp: Sendable {
    var app: ProviderApp
    var sealedCredentials: Data
    var caPEM: String?
    /// The `NotificationConfig` JSON the app serves to its devices.
    var categories: Data
    /// Grows by one on every categories change; the ETag.
    var categoriesVersion: Int
}
