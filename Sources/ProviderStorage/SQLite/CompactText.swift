import APNSCore
import Foundation
import GRDB

/// Text the SQLite deliveries keep in half the bytes or fewer: a token (an even number of lower-case hex digits) as the
/// bytes it spells, an `apns-unique-id` (a lower-case UUID) as its 16 bytes. Any other text is kept as it is; SQLite
/// keeps each value in its own type, so a reader tells the two apart by it, and every value reads back exactly as it
/// was written.
enum CompactText {
    /// A token as stored: its bytes when it is lower-case hex, else the text.
    /// The bytes are written in place: appending them to `Data` one by one took half of a fan-out's time (it runs for
    /// every device a broadcast reaches, as `compact_token`).
    static func token(_ text: String) -> DatabaseValue {
        var text = text
        let bytes: Data? = text.withUTF8 { utf8 in
            guard !utf8.isEmpty, utf8.count % 2 == 0 else { return nil }
            var bytes = Data(count: utf8.count / 2)
            let valid = bytes.withUnsafeMutableBytes { output in
                for index in output.indices {
                    guard let high = lowerCaseDigit(utf8[2 * index]), let low = lowerCaseDigit(utf8[2 * index + 1])
                    else { return false }
                    output[index] = high << 4 | low
                }
                return true
            }
            return valid ? bytes : nil
        }
        return bytes?.databaseValue ?? text.databaseValue
    }

    /// A token read back: the hex digits of stored bytes, or the stored text.
    static func tokenText(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .blob(let data): hex(data)
        case .string(let text): text
        default: ""
        }
    }

    /// An `apns-unique-id` as stored: its 16 bytes when it is a lower-case UUID, else the text.
    static func uniqueID(_ text: String?) -> DatabaseValue {
        guard let text else { return .null }
        // UUIDText, not UUID(uuidString:) and uuidString: Foundation's go through sscanf and sprintf on Linux, 2 % of
        // the provider's time in a broadcast, where every answer brings an apns-unique-id.
        guard let uuid = UUIDText.parseLowercase(text) else { return text.databaseValue }
        return withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue
    }

    /// An `apns-unique-id` read back.
    static func uniqueIDText(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .blob(let data) where data.count == MemoryLayout<uuid_t>.size:
            return UUID(uuid: data.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).lowercasedString
        case .string(let text): return text
        default: return nil
        }
    }

    /// The SQL functions the statements that copy tokens within the database use: `compact_token(text)` is
    /// ``token(_:)``, `token_text(value)` is ``tokenText(_:)`` and `compact_unique_id(text)` is ``uniqueID(_:)``.
    static func register(in db: Database) {
        db.add(
            function: DatabaseFunction("compact_token", argumentCount: 1, pure: true) { values in
                if case .string(let text) = values[0].storage { token(text) } else { values[0] }
            })
        db.add(
            function: DatabaseFunction("token_text", argumentCount: 1, pure: true) { values in
                values[0].isNull ? nil : tokenText(values[0])
            })
        db.add(
            function: DatabaseFunction("compact_unique_id", argumentCount: 1, pure: true) { values in
                if case .string(let text) = values[0].storage { uniqueID(text) } else { values[0] }
            })
    }

    private static func lowerCaseDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The bytes' lower-case hex digits, read from the bytes in place (iterating `Data` byte by byte cost a lease of a
    /// broadcast a twentieth of its time).
    private static func hex(_ data: Data) -> String {
        data.withUnsafeBytes(HexDigit.lowercaseText)
    }
}
