// An app group's container is where an app and its extensions share files; it exists only on Apple platforms
// (`FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`), so this initializer does too. Elsewhere a
// folder is given.
#if canImport(Darwin)
    public import Foundation

    extension HeraldConfiguration {
        /// A configuration whose folder is `Herald` in the app group's container, shared by the app and its
        /// extensions (each must have the app group in its entitlements).
        ///
        /// - Throws: ``HeraldError/configuration(_:)`` when the app group's container is not available (the
        ///   entitlement is missing).
        public init(providerURL: URL, publishableKey: String, appGroup: String) throws(HeraldError) {
            guard
                let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup)
            else {
                throw .configuration(
                    "the app group \(appGroup) has no container: add it to the app's and each extension's entitlements")
            }
            self.init(
                providerURL: providerURL, publishableKey: publishableKey,
                folder: container.appendingPathComponent("Herald", isDirectory: true))
        }
    }
#endif
