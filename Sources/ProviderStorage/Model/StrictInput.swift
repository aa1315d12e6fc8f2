package import APNSCore

/// A request body whose every key must be one it reads: a misspelt field (`"boddy"`) is a `400` naming it, with the
/// field meant when one is close, instead of a notification sent without its body.
///
/// A conforming type lists its fields as `CodingKeys: CaseIterable`, the same keys its synthesized decoding reads,
/// so the list cannot drift from what is decoded.
package protocol StrictInput: Decodable {
    /// The keys this body may have.
    static var fields: [String] { get }
    /// The fields whose value is an object (or an array of objects) that is strict too.
    static var nested: [String: any StrictInput.Type] { get }
}

extension StrictInput {
    package static var nested: [String: any StrictInput.Type] { [:] }

    /// Checks every key of `value` against ``fields``, and nested objects against their types'.
    ///
    /// - Parameters:
    ///   - value: the parsed body (or a nested object of it).
    ///   - path: where `value` is in the body, for the error (`content`, `devices[3]`).
    /// - Throws: ``ProviderError/invalid(field:message:)`` naming the first unknown key.
    package static func checkFields(of value: JSONValue, at path: String = "") throws(ProviderError) {
        guard case .object(let object) = value else { return }
        for member in object.members {
            let field = path.isEmpty ? member.key : "\(path).\(member.key)"
            guard fields.contains(member.key) else {
                let guess = closest(to: member.key).map { "; did you mean \($0)?" } ?? ""
                throw .invalid(
                    field: field,
                    message: "is not a field of this body\(guess) (the fields are \(fields.joined(separator: ", ")))")
            }
            guard let type = nested[member.key] else { continue }
            switch member.value {
            case .object: try type.checkFields(of: member.value, at: field)
            case .array(let elements):
                for (index, element) in elements.enumerated() {
                    try type.checkFields(of: element, at: "\(field)[\(index)]")
                }
            default: continue
            }
        }
    }

    /// The known field nearest to `key` by edit distance, when it is near enough to be a typo.
    private static func closest(to key: String) -> String? {
        let lowered = key.lowercased()
        let scored = fields.map { ($0, editDistance(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, key.count / 3) else { return nil }
        return best.0
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
