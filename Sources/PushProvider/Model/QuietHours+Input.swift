import APNSCore
import ProviderStorage

extension QuietHours {
    /// The fields of a quiet window in a request.
    static let fields = ["start", "end", "action"]

    /// Parses a quiet window from a request: `{"start": "22:00", "end": "08:00", "action": "wait" | "drop"}`.
    ///
    /// - Throws: ``ProviderError`` naming `field` (or its member) for anything else, and for a window of no time or
    ///   of the whole day (`start` equal to `end`).
    static func parse(_ value: JSONValue, field: String) throws(ProviderError) -> QuietHours {
        guard case .object(let object) = value else {
            throw .field(field, "must be {\"start\": \"22:00\", \"end\": \"08:00\", \"action\": \"wait\" or \"drop\"}")
        }
        for member in object.members where !fields.contains(member.key) {
            throw .field("\(field).\(member.key)", "is not a field of a quiet window (start, end, action)")
        }
        func time(_ name: String) throws(ProviderError) -> String {
            guard case .string(let text)? = object[name], QuietHours.minutes(text) != nil else {
                throw .field("\(field).\(name)", "must be a local time HH:MM, such as 22:00")
            }
            return text
        }
        let start = try time("start")
        let end = try time("end")
        guard start != end else {
            throw .field(
                "\(field).end",
                "equals start: a window of no time (or of the whole day) holds nothing back; give two different times")
        }
        let action: String
        switch object["action"] {
        case nil: action = "wait"
        case .string(let text)? where ["wait", "drop"].contains(text): action = text
        default: throw .field("\(field).action", "must be wait (sent when the window ends) or drop (not sent)")
        }
        return QuietHours(start: start, end: end, action: action)
    }
}
