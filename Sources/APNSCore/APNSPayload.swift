public import Foundation

/// A notification payload: a JSON object with Apple's keys in its `aps` dictionary and the app's own keys beside it.
///
/// The payload keeps every key in the order written, so decoding and encoding loses nothing.
///
/// ```swift
/// var payload = APNSPayload()
/// payload.aps["alert"] = ["title": "Game Request", "body": "Bob wants to play poker"]
/// payload["gameID"] = "12345678"
/// payload.encoded()  // {"aps":{"alert":{"title":"Game Request","body":"Bob wants to play poker"}},"gameID":"12345678"}
/// ```
public struct APNSPayload: Hashable, Sendable {
    /// The whole payload object.
    public var root: JSONObject

    /// A payload from its object.
    public init(_ root: JSONObject = JSONObject()) {
        self.root = root
    }

    /// Decodes a payload: JSON text whose top level is an object.
    ///
    /// - Throws: ``APNSPayloadError`` when the data is not JSON or not an object.
    public init(data: Data) throws(APNSPayloadError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data)
        } catch {
            throw Self.invalidJSON(error)
        }
        guard case .object(let object) = value else { throw Self.notAnObject(value.typeName) }
        self.root = object
    }

    /// Checks that `bytes` are a payload ``init(data:)`` would decode, without decoding it: what a server that only
    /// passes the payload on needs to know (the gateway, of every push), at a fraction of the cost.
    ///
    /// - Throws: the ``APNSPayloadError`` ``init(data:)`` throws for the same bytes.
    public static func check(_ bytes: [UInt8]) throws(APNSPayloadError) {
        let typeName: String
        do {
            typeName = try JSONValue.checkSyntax(of: bytes)
        } catch {
            throw invalidJSON(error)
        }
        guard typeName == "object" else { throw notAnObject(typeName) }
    }

    private static func invalidJSON(_ error: JSONSyntaxError) -> APNSPayloadError {
        APNSPayloadError(.invalidJSON, "the payload is not valid JSON: \(error)", cause: error)
    }

    private static func notAnObject(_ typeName: String) -> APNSPayloadError {
        APNSPayloadError(
            .notAnObject, "a payload is a JSON object; this one is \(typeName == "array" ? "an" : "a") \(typeName)")
    }

    /// The payload as compact UTF-8 JSON: the bytes a provider sends.
    public func encoded() -> Data { JSONValue.object(root).encoded() }

    /// A top-level key's value (`aps` or a custom key).
    public subscript(key: String) -> JSONValue? {
        get { root[key] }
        set { root[key] = newValue }
    }

    /// The `aps` dictionary; empty when the payload has none or it is not an object. Setting it writes `aps` where it
    /// was, or first for a new payload.
    public var aps: JSONObject {
        get { root["aps"]?.object ?? JSONObject() }
        set {
            if root["aps"] == nil {
                root.members.insert(JSONObject.Member(key: "aps", value: .object(newValue)), at: 0)
            } else {
                root["aps"] = .object(newValue)
            }
        }
    }

    /// The app's own top-level keys (everything but `aps`), in order; they become `userInfo` on the device.
    public var customKeys: [String] { root.keys.filter { $0 != "aps" } }
}
