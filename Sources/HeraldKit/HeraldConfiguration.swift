public import Foundation

/// Where an app's provider is and where HeraldKit keeps its state: the same for the app and its extensions.
///
/// ```swift
/// let configuration = try HeraldConfiguration(
///     providerURL: URL(string: "https://push.example.com")!, publishableKey: "pk_...",
///     appGroup: "group.com.example.app")
/// ```
public struct HeraldConfiguration: Sendable {
    /// The provider's base URL (`herald serve`), without `/v1`.
    public var providerURL: URL
    /// The app's publishable key (`pk_...`): not a secret, it ships in the app.
    public var publishableKey: String
    /// The folder HeraldKit keeps its queue of receipts, its last registration, its categories and (off Apple
    /// platforms) its end-to-end key in. The app and its extensions must share it: an app group container on iOS.
    public var folder: URL
    /// The app's bundle ID, sent with the registration so the provider can check it (the main bundle's by default).
    public var bundleID: String?
    /// `development` or `production`: the APNs environment of the app's tokens, sent with the registration so the
    /// provider can refuse a mix-up (a development build's token sent to production APNs fails there).
    public var environment: String?
    /// The most receipts kept while they cannot be sent; past it the oldest are dropped, and counted.
    public var receiptLimit: Int = 1000
    /// The longest wait between two tries to send receipts when the network or the provider fails.
    public var longestRetryDelay: Duration = .seconds(300)

    /// - Parameters:
    ///   - providerURL: the provider's base URL.
    ///   - publishableKey: the app's `pk_...` key.
    ///   - folder: a folder the app and its extensions share; created when missing.
    public init(providerURL: URL, publishableKey: String, folder: URL) {
        self.providerURL = providerURL
        self.publishableKey = publishableKey
        self.folder = folder
        self.bundleID = Bundle.main.bundleIdentifier
    }
}
