/// Rules for `apns-topic`: a bundle ID (reverse-DNS letters, digits, `-` and `.`), plus the suffix of its push type.
public enum APNSTopic {
    /// Why a topic is not acceptable, or `nil` when it is: an empty topic, a character a bundle ID cannot contain,
    /// empty labels (`com..app`), or more than 255 bytes.
    public static func problem(with topic: String) -> String? {
        let bytes = topic.utf8
        if bytes.isEmpty { return "the topic is empty; use the app's bundle ID" }
        if bytes.count > 255 { return "the topic is \(bytes.count) bytes; a bundle ID is at most 255" }
        // One pass over the bytes: every gateway request checks its topic.
        let dot = UInt8(ascii: ".")
        var previous = dot
        var emptyPart = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                break
            case dot:
                if previous == dot { emptyPart = true }
            default:
                let bad = topic.unicodeScalars.first { !isBundleIDCharacter($0) } ?? "?"
                return "the topic contains '\(bad)'; a bundle ID has only letters, digits, '-' and '.'"
            }
            previous = byte
        }
        if emptyPart || previous == dot { return "the topic '\(topic)' has an empty part between dots" }
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
