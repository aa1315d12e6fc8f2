/// Rules for `apns-topic`: a bundle ID (reverse-DNS letters, digits, `-` and `.`), plus the suffix of its push type.
public enum APNSTopic {
    /// Why a topic is not acceptable, or `nil` when it is: an empty topic, a character a bundle ID cannot contain,
    /// empty labels (`com..app`), or more than 255 bytes.
    public static func problem(with topic: String) -> String? {
        if topic.isEmpty { return "the topic is empty; use the app's bundle ID" }
        if topic.utf8.count > 255 { return "the topic is \(topic.utf8.count) bytes; a bundle ID is at most 255" }
        if let bad = topic.unicodeScalars.first(where: { !isBundleIDCharacter($0) }) {
            return "the topic contains '\(bad)'; a bundle ID has only letters, digits, '-' and '.'"
        }
        if topic.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "the topic '\(topic)' has an empty part between dots"
        }
        return nil
    }

    /// The push type whose suffix `topic` ends with (the longest match), or `nil` when it names a bundle ID alone.
    public static func pushTypeSuffixed(in topic: String) -> APNSPushType? {
        APNSPushType.allKnown
            .compactMap { type in type.topicSuffix.flatMap { $0.isEmpty ? nil : (type, $0) } }
            .filter { topic.hasSuffix($0.1) && topic.count > $0.1.count }
            .max { $0.1.count < $1.1.count }?.0
    }

    private static func isBundleIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".": true
        default: false
        }
    }
}
