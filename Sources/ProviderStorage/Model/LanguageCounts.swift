import Foundation

/// A notification's deliveries by language (``StoredNotification/languageCounts``) as stored: a JSON object.
enum LanguageCounts {
    static func encode(_ counts: [String: Int]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(counts)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func decode(_ text: String?) -> [String: Int]? {
        text.flatMap { try? JSONDecoder().decode([String: Int].self, from: Data($0.utf8)) }
    }
}
