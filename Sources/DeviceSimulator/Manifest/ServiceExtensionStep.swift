/// One thing a manifest's service extension does to a notification, so common extensions need no Swift.
package enum ServiceExtensionStep: Sendable, Hashable, Decodable {
    /// `{"rewrite": {"title": ..., "subtitle": ..., "body": ...}}`: replaces the fields given.
    case rewrite(title: String?, subtitle: String?, body: String?)
    /// `{"attachFrom": "<userInfo key>"}`: downloads the URL in that custom key into an attachment; a
    /// payload without the key passes unchanged.
    case attachFrom(userInfoKey: String)
    /// `{"decrypt": "<userInfo key>"}`: decrypts that custom key's end-to-end encrypted content.
    case decrypt(userInfoKey: String)
    /// `{"delay": seconds}`: works that long before the next step, like a slow extension (past the time limit the
    /// content so far is shown).
    case delay(seconds: Double)
    /// `{"fail": "reason"}`: the extension crashes here; the original content is shown at once.
    case fail(reason: String)

    /// The longest `delay` a step may ask for: a day, far past any extension's time limit.
    static let longestDelay: Double = 86_400

    private enum CodingKeys: String, CodingKey { case rewrite, attachFrom, decrypt, delay, fail }
    private struct Rewrite: Decodable {
        var title: String?
        var subtitle: String?
        var body: String?
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: Self.forms
                ))
        }
        switch key {
        case .rewrite:
            let rewrite = try container.decode(Rewrite.self, forKey: .rewrite)
            self = .rewrite(title: rewrite.title, subtitle: rewrite.subtitle, body: rewrite.body)
        case .attachFrom:
            self = .attachFrom(userInfoKey: try container.decode(String.self, forKey: .attachFrom))
        case .decrypt:
            self = .decrypt(userInfoKey: try container.decode(String.self, forKey: .decrypt))
        case .delay:
            let seconds = try container.decode(Double.self, forKey: .delay)
            guard seconds >= 0, seconds <= Self.longestDelay else {
                throw DecodingError.dataCorruptedError(
                    forKey: .delay, in: container,
                    debugDescription: "a delay is a number of seconds from 0 to \(Int(Self.longestDelay))")
            }
            self = .delay(seconds: seconds)
        case .fail:
            self = .fail(reason: try container.decode(String.self, forKey: .fail))
        }
    }

    private static let forms =
        #"a step is one of {"rewrite": {...}}, {"attachFrom": key}, {"decrypt": key}, {"delay": seconds}, "#
        + #"{"fail": reason}"#
}
