import APNSCore
import ProviderStorage

extension FrequencyCap {
    /// The fields of a cap in a request.
    static let fields = ["category", "limit", "window", "per"]

    /// Checks a category's name: 1 to 64 letters, digits, `-`, `_` or `.`.
    ///
    /// - Throws: ``ProviderError`` naming `field` for any other.
    static func checkCategory(_ name: String, field: String) throws(ProviderError) -> String {
        guard (1...64).contains(name.utf8.count),
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789-_.".unicodeScalars.contains($0))
            })
        else {
            throw .field(field, "must be a category name of 1 to 64 letters, digits, -, _ or . (such as marketing)")
        }
        return name
    }

    /// Parses an app's caps from a request: a list of `{"category", "limit", "window", "per"}`; `[]` or `""` for
    /// none.
    ///
    /// - Throws: ``ProviderError`` naming `field` (or the member of one cap) for anything else: more than
    ///   ``maxCaps``, a limit or window out of range, two caps of one category, subject and window.
    static func parse(_ value: JSONValue, field: String) throws(ProviderError) -> [FrequencyCap]? {
        if case .string("") = value { return nil }
        guard case .array(let list) = value else {
            throw .field(
                field,
                "must be a list of caps, such as [{\"category\": \"marketing\", \"limit\": 3, \"window\": \"1d\", "
                    + "\"per\": \"user\"}] ([] removes them)")
        }
        guard list.count <= maxCaps else {
            throw .field(field, "has \(list.count) caps; an app may have at most \(maxCaps)")
        }
        var caps: [FrequencyCap] = []
        for (index, item) in list.enumerated() {
            let cap = try parseCap(item, field: "\(field)[\(index)]")
            if caps.contains(where: { $0.category == cap.category && $0.per == cap.per && $0.window == cap.window }) {
                throw .field(
                    "\(field)[\(index)]",
                    "repeats the cap of \(cap.category) per \(cap.per) over \(cap.window) s; keep one of them")
            }
            caps.append(cap)
        }
        return caps.isEmpty ? nil : caps
    }

    private static func parseCap(_ value: JSONValue, field: String) throws(ProviderError) -> FrequencyCap {
        guard case .object(let object) = value else {
            throw .field(
                field, "must be {\"category\": \"marketing\", \"limit\": 3, \"window\": \"1d\", \"per\": \"user\"}")
        }
        for member in object.members where !fields.contains(member.key) {
            throw .field("\(field).\(member.key)", "is not a field of a cap (category, limit, window, per)")
        }
        guard case .string(let name)? = object["category"] else {
            throw .field("\(field).category", "is required: the capCategory of the notifications it counts")
        }
        let category = try checkCategory(name, field: "\(field).category")
        guard let limit = object["limit"]?.number?.intValue, (1...maxLimit).contains(limit) else {
            throw .field(
                "\(field).limit",
                "must be a whole number from 1 to \(maxLimit): how many notifications of the category one user or "
                    + "device may get in the window (a category that must send nothing is not sent)")
        }
        guard let window = object["window"].flatMap(windowSeconds), (minWindow...maxWindow).contains(window) else {
            throw .field(
                "\(field).window",
                "must be a time from 1 minute to 30 days: seconds (86400) or a number with m, h or d (\"1d\", \"12h\")")
        }
        let per: String
        switch object["per"] {
        case nil: per = "user"
        case .string(let text)? where ["user", "device"].contains(text): per = text
        default: throw .field("\(field).per", "must be user (a user's devices count as one) or device")
        }
        return FrequencyCap(category: category, limit: limit, window: window, per: per)
    }

    /// The seconds a window gives: a whole number, or one followed by `m`, `h` or `d`.
    private static func windowSeconds(_ value: JSONValue) -> Int? {
        if let seconds = value.number?.intValue { return seconds }
        guard let text = value.string, let unit = text.last, let count = Int(text.dropLast()), count > 0,
            count <= maxWindow
        else { return nil }
        switch unit {
        case "m": return count * 60
        case "h": return count * 3_600
        case "d": return count * 86_400
        default: return nil
        }
    }
}
