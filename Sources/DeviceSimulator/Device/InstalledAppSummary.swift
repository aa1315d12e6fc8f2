/// An installed app as the device API shows it.
public struct InstalledAppSummary: Sendable, Hashable, Encodable {
    public let bundleID: String
    public let environment: String
    /// The device token in hex, once registered.
    public let token: String?
    /// The end-to-end public key (X25519, base64 of 32 bytes) a provider seals content to (docs/e2e.md).
    public let publicKey: String
    /// The number on the app's icon.
    public let badge: Int
    /// The Live Activity types its manifest declares (each with a push-to-start token once registered).
    public let activityTypes: [String]
}
