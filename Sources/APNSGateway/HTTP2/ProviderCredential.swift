import APNSCore

/// What authenticated a push: a provider token's key, or the connection's provider certificate; each limits the
/// topics it may push to.
enum ProviderCredential {
    case key(APNSProviderTokenVerifier.Key)
    case certificate(PushCertificate)

    /// The topic a push without `apns-topic` goes to: a single-topic certificate's (APNs uses the certificate's
    /// subject); token authentication has none.
    var defaultTopic: String? {
        if case .certificate(let certificate) = self, certificate.topics.count == 1 { return certificate.topics[0] }
        return nil
    }

    /// Why `apns-topic` cannot be left out.
    var missingTopicMessage: String {
        switch self {
        case .key: "apns-topic is required with token authentication"
        case .certificate: "apns-topic is required with a certificate for several topics"
        }
    }

    /// Why this credential may not push to `topic` of `bundleID`, or `nil` when it may.
    func problem(pushingTo topic: String, bundleID: String) -> String? {
        switch self {
        case .key(let key):
            guard let topics = key.topics, !topics.contains(bundleID) else { return nil }
            return "key \(key.keyID) may not push to \(bundleID)"
        case .certificate(let certificate):
            guard !certificate.topics.contains(topic) else { return nil }
            return "the certificate covers \(certificate.topics.joined(separator: ", ")), not \(topic)"
        }
    }
}
