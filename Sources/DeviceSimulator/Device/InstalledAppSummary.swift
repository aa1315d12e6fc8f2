/// An installed app as the device API shows it.
package struct InstalledAppSummary: Sendable, Hashable, Encodable {
    package let bundleID: String
    package let environment: String
    /// The device token in hex, once registered.
    package let token: String?
    /// The end-to-end public key (X25519, base64 of 32 bytes) a provider seals content to (docs/e2e.md).
    package let publicKey: String
    /// The number on the app's icon.
    package let badge: Int
    /// The Live Activity types its manifest declares (each with a push-to-start token once registered).
    package let activityTypes: [String]
}
