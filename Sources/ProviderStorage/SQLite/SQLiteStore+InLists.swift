import GRDB

extension SQLiteStore {
    /// The most values one `IN (...)` list binds: well under SQLite's limit on a statement's parameters.
    static let inListSize = 500

    /// Calls `body` with each part of `values` (at most ``inListSize``) and its placeholders (`?,?,...`), for a
    /// statement that reads the rows matching a long list of values a part at a time.
    static func inLists(_ values: [String], _ body: (_ part: [String], _ marks: String) throws -> Void) rethrows {
        for start in stride(from: 0, to: values.count, by: inListSize) {
            let part = Array(values[start..<min(start + inListSize, values.count)])
            try body(part, Array(repeating: "?", count: part.count).joined(separator: ","))
        }
    }
}
