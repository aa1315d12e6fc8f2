import Foundation

/// Who a notification goes to, checked.
enum NotificationTarget: Sendable, Hashable {
    case tokens([String])
    case user(String)
    case tags(TagExpression)
    case all

    /// Checks that exactly one kind of target is given.
    ///
    /// - Throws: ``ProviderError`` naming `target` when none or several are given, or a token or expression is bad.
    init(_ input: NotificationInput.Target) throws(ProviderError) {
        var found: [NotificationTarget] = []
        if let token = input.token { found.append(.tokens([try Self.checkToken(token, field: "target.token")])) }
        if let tokens = input.tokens {
            guard !tokens.isEmpty, tokens.count <= 10_000 else {
                throw .field("target.tokens", "give between 1 and 10,000 tokens; use tags or all for more")
            }
            var checked: [String] = []
            for (index, token) in tokens.enumerated() {
                checked.append(try Self.checkToken(token, field: "target.tokens[\(index)]"))
            }
            found.append(.tokens(checked))
        }
        if let user = input.user { found.append(.user(user)) }
        if let tags = input.tags { found.append(.tags(try TagExpression(parsing: tags))) }
        if input.all == true { found.append(.all) }
        guard found.count == 1, let target = found.first else {
            throw .field("target", "give exactly one of token, tokens, user, tags or all: true")
        }
        self = target
    }

    /// A device token is hex, an even number of digits, at most 200.
    static func checkToken(_ token: String, field: String) throws(ProviderError) -> String {
        let lowered = token.lowercased()
        guard !lowered.isEmpty, lowered.count % 2 == 0, lowered.count <= 200, lowered.allSatisfy(\.isHexDigit)
        else {
            throw .field(field, "a device token is an even number of hex digits (at most 200); got \"\(token)\"")
        }
        return lowered
    }

    /// The target as stored: the request's `target` object.
    var stored: String {
        let object: [String: Any] =
            switch self {
            case .tokens(let tokens): ["tokens": tokens]
            case .user(let user): ["user": user]
            case .tags(let expression): ["tags": expression.source]
            case .all: ["all": true]
            }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads what ``stored`` wrote.
    static func parse(stored: String) throws -> NotificationTarget {
        try NotificationTarget(JSONDecoder().decode(NotificationInput.Target.self, from: Data(stored.utf8)))
    }

    /// A short description for people.
    var summary: String {
        switch self {
        case .tokens(let tokens): tokens.count == 1 ? "token:\(tokens[0])" : "tokens:\(tokens.count)"
        case .user(let user): "user:\(user)"
        case .tags(let expression): "tags:\(expression.source)"
        case .all: "all"
        }
    }
}
