import Foundation

/// The attributes of a device (``DeviceRecord/attributes``) or a user, which a notification's variables name: a
/// JSON object of strings as stored.
package enum DeviceAttributes {
    /// The most attributes one device (or user) may carry, the longest name and the longest value.
    package static let maximumAttributes = 16
    package static let maximumAttributeName = 32
    package static let maximumAttributeValue = 256

    package static func encode(_ attributes: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(attributes)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    package static func decode(_ text: String?) -> [String: String]? {
        text.flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
    }

    /// Checks attributes of `owner` (`a device`, `a user`): at most ``maximumAttributes``, each named by a letter and
    /// up to 31 letters, digits or `_`, each value up to ``maximumAttributeValue`` characters without U+0000.
    ///
    /// - Throws: ``ProviderError`` naming `attributes` or the attribute.
    package static func check(_ attributes: [String: String], of owner: String) throws(ProviderError) {
        guard attributes.count <= maximumAttributes else {
            throw .field(
                "attributes", "\(owner) has at most \(maximumAttributes) attributes; this one has \(attributes.count)")
        }
        for (name, value) in attributes {
            let valid =
                (1...maximumAttributeName).contains(name.count) && name.first?.isASCII == true
                && name.first?.isLetter == true
                && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            guard valid else {
                throw .field(
                    "attributes",
                    "\"\(name.prefix(40))\" is not an attribute name: a letter, then up to "
                        + "\(maximumAttributeName - 1) letters, digits or _")
            }
            guard value.count <= maximumAttributeValue else {
                throw .field("attributes.\(name)", "is at most \(maximumAttributeValue) characters")
            }
            try ProviderError.refuseNUL(value, field: "attributes.\(name)")
        }
    }
}
