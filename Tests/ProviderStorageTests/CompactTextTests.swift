import Foundation
import GRDB
import Testing

@testable import ProviderStorage

@Suite("Tokens and apns-unique-ids kept as bytes in SQLite")
struct CompactTextTests {
    @Test(
        "a token reads back exactly as written; only lower-case hex is kept as bytes (half the size)",
        arguments: [
            ("", "text"), ("a", "text"), ("aa", "blob"), ("AA", "text"), ("aA", "text"), ("zz", "text"),
            ("t1", "text"), ("00ff", "blob"), ("0af9", "blob"), ("g0", "text"), ("0g", "text"), ("a/", "text"),
            (String(repeating: "ab", count: 100), "blob"),
            (String(repeating: "0", count: 64), "blob"), ("channel:abcd", "text"), ("ééé", "text"),
        ])
    func tokens(_ token: String, kind: String) throws {
        let stored = CompactText.token(token)
        #expect(CompactText.tokenText(stored) == token)
        switch stored.storage {
        case .blob(let data):
            #expect(kind == "blob")
            #expect(data.count == token.utf8.count / 2)
        default: #expect(kind == "text")
        }
    }

    @Test("an apns-unique-id reads back exactly as written; a lower-case UUID is kept in 16 bytes")
    func uniqueIDs() {
        let lower = "a9e8b3b0-4b7b-4c3a-9f0e-2f5d6c7b8a90"
        for text in [lower, lower.uppercased(), "not a uuid", ""] {
            #expect(CompactText.uniqueIDText(CompactText.uniqueID(text)) == text)
        }
        if case .blob(let data) = CompactText.uniqueID(lower).storage {
            #expect(data.count == 16)
        } else {
            Issue.record("a lower-case UUID was not kept as bytes")
        }
        #expect(CompactText.uniqueID(nil).isNull)
        #expect(CompactText.uniqueIDText(.null) == nil)
    }

    @Test("the SQL functions do what the Swift ones do, and leave bytes already compact alone")
    func sqlFunctions() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            CompactText.register(in: db)
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT typeof(compact_token('00ff')), typeof(compact_token('T1')),
                            token_text(compact_token('00ff')), token_text(compact_token(compact_token('00ff'))),
                            typeof(compact_unique_id('a9e8b3b0-4b7b-4c3a-9f0e-2f5d6c7b8a90')),
                            compact_token(NULL) IS NULL, token_text(NULL) IS NULL
                        """))
            #expect(row[0] as String == "blob")
            #expect(row[1] as String == "text")
            #expect(row[2] as String == "00ff")
            #expect(row[3] as String == "00ff")
            #expect(row[4] as String == "blob")
            #expect(row[5] as Bool)
            #expect(row[6] as Bool)
        }
    }
}
