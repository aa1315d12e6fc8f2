/// A boolean expression over device tags: `sports && (news || !weather)`. Tags are letters, digits, `_`, `-`, `.`
/// and `:`; `&&`, `||`, `!` and parentheses combine them (also `and`, `or`, `not`).
///
/// An expression has limits, each checked before anything is built, so no input can make the parser recurse deeply
/// or the database plan a huge query: at most ``maximumLength`` characters, ``maximumTags`` tags and
/// ``maximumNesting`` levels of parentheses and `!`.
package struct TagExpression: Sendable, Hashable {
    /// The longest expression, in characters.
    package static let maximumLength = 1024
    /// The most tags one expression may name.
    package static let maximumTags = 32
    /// The deepest nesting of `(` and `!`.
    package static let maximumNesting = 16

    package indirect enum Node: Sendable, Hashable {
        case tag(String)
        case not(Node)
        case and(Node, Node)
        case or(Node, Node)
    }

    package let root: Node
    /// The expression as given.
    package let source: String

    /// Parses an expression.
    ///
    /// - Throws: ``ProviderError`` naming `target.tags` and the position of the problem.
    package init(parsing source: String) throws(ProviderError) {
        guard source.count <= Self.maximumLength else {
            throw .field(
                "target.tags",
                "the tag expression is \(source.count) characters; the limit is \(Self.maximumLength)")
        }
        var parser = Parser(tokens: try Self.tokenize(source))
        let root = try parser.parseOr()
        guard parser.position == parser.tokens.count else {
            throw .field("target.tags", "unexpected \"\(parser.tokens[parser.position])\" in \"\(source)\"")
        }
        self.root = root
        self.source = source
    }

    /// The SQL condition for a device row aliased `d`, with one `?` per tag in `arguments`' order.
    package func sql(arguments: inout [String]) -> String {
        Self.sql(root, arguments: &arguments)
    }

    private static func sql(_ node: Node, arguments: inout [String]) -> String {
        switch node {
        case .tag(let tag):
            arguments.append(tag)
            return "EXISTS (SELECT 1 FROM device_tags t WHERE t.app_id = d.app_id AND t.token = d.token AND t.tag = ?)"
        case .not(let inner): return "NOT (\(sql(inner, arguments: &arguments)))"
        case .and(let left, let right):
            return "(\(sql(left, arguments: &arguments)) AND \(sql(right, arguments: &arguments)))"
        case .or(let left, let right):
            return "(\(sql(left, arguments: &arguments)) OR \(sql(right, arguments: &arguments)))"
        }
    }

    private static func tokenize(_ source: String) throws(ProviderError) -> [String] {
        var tokens: [String] = []
        var index = source.startIndex
        func isTagCharacter(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || "_-.:".contains(character)
        }
        while index < source.endIndex {
            let character = source[index]
            if character.isWhitespace {
                index = source.index(after: index)
            } else if "()!".contains(character) {
                tokens.append(String(character))
                index = source.index(after: index)
            } else if source[index...].hasPrefix("&&") || source[index...].hasPrefix("||") {
                tokens.append(String(source[index..<source.index(index, offsetBy: 2)]))
                index = source.index(index, offsetBy: 2)
            } else if isTagCharacter(character) {
                var end = index
                while end < source.endIndex, isTagCharacter(source[end]) { end = source.index(after: end) }
                let word = String(source[index..<end])
                tokens.append(["and": "&&", "or": "||", "not": "!"][word.lowercased()] ?? word)
                index = end
            } else {
                throw .field("target.tags", "\"\(character)\" cannot appear in a tag expression: \"\(source)\"")
            }
        }
        guard !tokens.isEmpty else { throw .field("target.tags", "the tag expression is empty") }
        let tags = tokens.count { !["(", ")", "!", "&&", "||"].contains($0) }
        guard tags <= maximumTags else {
            throw .field(
                "target.tags",
                "the tag expression names \(tags) tags; the limit is \(maximumTags) (target several notifications, "
                    + "or tag the devices with one tag that stands for the group)")
        }
        return tokens
    }

    private struct Parser {
        let tokens: [String]
        var position = 0
        /// How many `(` and `!` enclose the current position.
        var nesting = 0

        mutating func parseOr() throws(ProviderError) -> Node {
            var node = try parseAnd()
            while peek == "||" {
                position += 1
                node = .or(node, try parseAnd())
            }
            return node
        }

        mutating func parseAnd() throws(ProviderError) -> Node {
            var node = try parseUnary()
            while peek == "&&" {
                position += 1
                node = .and(node, try parseUnary())
            }
            return node
        }

        mutating func parseUnary() throws(ProviderError) -> Node {
            guard let token = peek else { throw .field("target.tags", "the tag expression ends too early") }
            position += 1
            switch token {
            case "!":
                try enter()
                defer { nesting -= 1 }
                return .not(try parseUnary())
            case "(":
                try enter()
                defer { nesting -= 1 }
                let inner = try parseOr()
                guard peek == ")" else { throw .field("target.tags", "a \"(\" is not closed") }
                position += 1
                return inner
            case ")", "&&", "||": throw .field("target.tags", "expected a tag where \"\(token)\" is")
            default: return .tag(token)
            }
        }

        var peek: String? { position < tokens.count ? tokens[position] : nil }

        /// One level deeper, or the error naming the limit.
        mutating func enter() throws(ProviderError) {
            nesting += 1
            guard nesting <= TagExpression.maximumNesting else {
                throw .field(
                    "target.tags",
                    "the tag expression nests ( and ! more than \(TagExpression.maximumNesting) deep; write it flatter")
            }
        }
    }
}
