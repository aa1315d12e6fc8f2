public import Crypto
import Foundation

/// An app's connection to its Herald provider: one instance in the app and one in each extension, made from the
/// same ``HeraldConfiguration``.
///
/// - Registration: ``register(deviceToken:_:)`` from `didRegisterForRemoteNotificationsWithDeviceToken`.
/// - Receipts: ``didReceive(_:)-(UNNotificationRequest)`` in the service extension, ``willPresent(_:)`` and
///   ``didReceive(_:)-(UNNotificationResponse)`` in the notification center's delegate. They are queued on disk and
///   sent in order when the provider can be reached; none is sent twice.
/// - Categories: ``syncCategories(keeping:)`` at launch.
/// - End-to-end fields: ``openEncryptedFields(in:)`` in the service extension.
/// - Live Activity and widget tokens: ``registerActivityToken(_:kind:attributesType:activityID:)`` and
///   ``registerWidgetToken(_:kind:)``.
public final class Herald: Sendable {
    /// What this instance was made with.
    public let configuration: HeraldConfiguration
    let connection: ProviderConnection
    let receipts: ReceiptQueue
    let sender: ReceiptSender
    let problemLog: ProblemLog
    let keyStore: any EndToEndKeyStore
    let registrationFile: RegistrationFile
    let categoriesFile: URL

    /// - Parameters:
    ///   - configuration: the provider, the key and the shared folder.
    ///   - keychainAccessGroup: on Apple platforms, the keychain access group the app and its service extension
    ///     share, for the end-to-end key (nil: the app's own keychain, which an extension cannot read).
    ///   - onProblem: called with each problem as it happens (a receipt refused, a provider unreachable, a key that
    ///     does not open an envelope), besides ``problems``.
    /// - Throws: ``HeraldError/configuration(_:)`` for a provider URL that is not http(s), or
    ///   ``HeraldError/storage(_:)`` when the folder cannot be made.
    public init(
        configuration: HeraldConfiguration, keychainAccessGroup: String? = nil,
        onProblem: (@Sendable (HeraldError) -> Void)? = nil
    ) throws(HeraldError) {
        guard ["http", "https"].contains(configuration.providerURL.scheme?.lowercased() ?? "") else {
            throw .configuration("the provider URL \(configuration.providerURL) is not http or https")
        }
        guard configuration.publishableKey.hasPrefix("pk_") else {
            throw .configuration("the publishable key starts with pk_ (an sk_ key must never ship in an app)")
        }
        self.configuration = configuration
        connection = ProviderConnection(configuration: configuration)
        problemLog = ProblemLog(handler: onProblem)
        receipts = try ReceiptQueue(
            folder: configuration.folder, limit: configuration.receiptLimit, problems: problemLog)
        sender = ReceiptSender(
            queue: receipts, connection: connection, longestDelay: configuration.longestRetryDelay,
            problems: problemLog)
        registrationFile = RegistrationFile(url: configuration.folder.appendingPathComponent("registration.json"))
        categoriesFile = configuration.folder.appendingPathComponent("categories.json")
        #if canImport(Security)
            keyStore = KeychainKeyStore(
                account: configuration.bundleID ?? "app", accessGroup: keychainAccessGroup)
        #else
            keyStore = FileKeyStore(file: configuration.folder.appendingPathComponent("end-to-end.key"))
        #endif
    }

    /// The last problems met (at most 50), oldest first.
    public var problems: [HeraldError] { problemLog.all }

    /// The app's end-to-end key pair, made and kept on first use.
    ///
    /// - Throws: ``HeraldError/storage(_:)`` when a new key cannot be kept, ``HeraldError/endToEnd(_:)`` when the
    ///   kept one cannot be read.
    public func endToEndKey() throws(HeraldError) -> Curve25519.KeyAgreement.PrivateKey {
        if let key = try keyStore.load() { return key }
        let key = Curve25519.KeyAgreement.PrivateKey()
        try keyStore.save(key)
        return key
    }
}
