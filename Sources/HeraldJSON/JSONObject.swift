/// A JSON object as its members in the order they were written, duplicates included.
///
/// Lookup returns the last member with a key, as most JSON readers (and iOS's) do; ``duplicateKeys`` names the keys
/// written more than once so a linter can warn about them.
public struct JSONObject: Sendable, Hashable {
    /// The members in written order.
    public var members: [Member]

    /// One `"key": value` pair.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// An object with the given members in order.
    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members.map { Member(key: $0.key, value: $0.value) }
    }

    /// The value of the last member named `key`; setting replaces it in place (removing earlier duplicates), appends
    /// a new key at the end, or removes every member named `key` when set to `nil`.
    public subscript(key: String) -> JSONValue? {
        get { members.last(where: { $0.key == key })?.value }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let last = members.lastIndex(where: { $0.key == key }) {
                members[last].value = newValue
                members = members.enumerated().filter { $0.offset == last || $0.element.key != key }.map(\.element)
            } else {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// The keys in written order, duplicates once each.
    public var keys: [String] {
        var seen = Set<String>()
        return members.compactMap { seen.insert($0.key).inserted ? $0.key : nil }
    }

    /// Keys written more than once, in the order their second occurrence appears.
    public var duplicateKeys: [String] {
        var seen = Set<String>()
        var duplicates: [String] = []
        for member in members where !seen.insert(member.key).inserted && !duplicates.contains(member.key) {
            duplicates.append(member.key)
        }
        return duplicates
    }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }
}
