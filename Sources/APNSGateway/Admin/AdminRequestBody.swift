import APNSCore
import Foundation

/// An admin request's JSON object body, with field readers that say what is missing or wrong.
struct AdminRequestBody {
    private let object: JSONObject

    init(_ bytes: [UInt8]) throws(AdminError) {
        guard case .object(let object)? = try? JSONValue(parsing: Data(bytes)) else {
            throw AdminError(400, "the body must be a JSON object; see docs/gateway.md")
        }
        self.object = object
    }

    func string(_ key: String) throws(AdminError) -> String {
        guard let value = try optionalString(key) else { throw AdminError(400, "the body needs \"\(key)\"") }
        return value
    }

    func optionalString(_ key: String) throws(AdminError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let string = value.string else { throw AdminError(400, "\"\(key)\" must be a string") }
        return string
    }

    func optionalInt(_ key: String) throws(AdminError) -> Int? {
        guard let value = object[key], value != .null else { return nil }
        guard let number = value.number?.intValue else { throw AdminError(400, "\"\(key)\" must be a whole number") }
        return number
    }

    func optionalBool(_ key: String) throws(AdminError) -> Bool? {
        guard let value = object[key], value != .null else { return nil }
        guard case .bool(let bool) = value else { throw AdminError(400, "\"\(key)\" must be true or false") }
        return bool
    }

    func optionalStrings(_ key: String) throws(AdminError) -> [String]? {
        guard let value = object[key], value != .null else { return nil }
        guard let array = value.array, array.allSatisfy({ $0.string != nil }) else {
            throw AdminError(400, "\"\(key)\" must be an array of strings")
        }
        return array.compactMap(\.string)
    }
}

/// The `?name=value&...` part of an admin path, percent-decoded.
struct AdminQuery {
    private let items: [String: String]

    init(_ text: String) {
        var items: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).removingPercentEncoding ?? String($0)
            }
            if parts.count == 2 { items[parts[0]] = parts[1] }
        }
        self.items = items
    }

    subscript(name: String) -> String? { items[name] }
}
