package import Foundation

/// An app row: what the API shows plus the sealed credentials, the endpoint's CA and the categories.
package struct StoredApp: Sendable {
    package var app: ProviderApp
    package var sealedCredentials: Data
    package var caPEM: String?
    /// The `NotificationConfig` JSON the app serves to its devices.
    package var categories: Data
    /// Grows by one on every categories change; the ETag.
    package var categoriesVersion: Int
    /// When a device last reported a receipt (to the hour): nil when none of the app's devices ever has, which means
    /// the app does not run HeraldKit and "accepted by APNs" is the last step the provider will see.
    package var lastReceiptAt: Date?

    /// Every stored property, as given.
    package init(
        app: ProviderApp, sealedCredentials: Data, caPEM: String? = nil, categories: Data, categoriesVersion: Int,
        lastReceiptAt: Date? = nil
    ) {
        self.lastReceiptAt = lastReceiptAt
        self.app = app
        self.sealedCredentials = sealedCredentials
        self.caPEM = caPEM
        self.categories = categories
        self.categoriesVersion = categoriesVersion
    }
}
