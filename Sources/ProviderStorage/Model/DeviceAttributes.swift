import Foundation

/// A device's attributes (``DeviceRecord/attributes``) as stored: a JSON object of strings.
package enum DeviceAttributes {
    package static func encode(_ attributes: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(attributes)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    package static func decode(_ text: String?) -> [String: String]? {
        text.flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
    }
}
