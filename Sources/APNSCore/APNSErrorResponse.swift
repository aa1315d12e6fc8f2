public import Foundation

/// The JSON body of an APNs error response, `{"reason": "...", "timestamp": 1700000000000}`, also sent in GOAWAY
/// frames.
public struct APNSErrorResponse: Hashable, Sendable, Codable {
    /// Why APNs rejected the request.
    public var reason: APNSReason
    /// For 410 only: when APNs learned the token stopped being valid for the topic, in milliseconds since 1970.
    public var timestamp: Int64?
    /// Herald's local APNs only, and only to a request that asks with ``explainHeader``: what exactly was wrong, for
    /// a person (`the token's iss WRONGTEAM1 is not the team DEF123GHIJ of key ABC123DEFG`). Apple sends no such key.
    public var explanation: String?

    /// The request header (`herald-explain: 1`) with which a client asks the local APNs to explain a rejection.
    /// Herald's client sends it to any endpoint but Apple's; a request without it gets Apple's body, byte for byte.
    public static let explainHeader = "herald-explain"

    public init(reason: APNSReason, timestamp: Int64? = nil, explanation: String? = nil) {
        self.reason = reason
        self.timestamp = timestamp
        self.explanation = explanation
    }

    /// A 410 body with the moment the token stopped being valid.
    public init(reason: APNSReason, invalidSince date: Date, explanation: String? = nil) {
        self.init(
            reason: reason, timestamp: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)),
            explanation: explanation)
    }

    /// The 410 timestamp as a date, or `nil` when the body has none.
    public var invalidSince: Date? {
        timestamp.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
    }

    /// Decodes an error body.
    ///
    /// - Throws: `DecodingError` when the body is not a JSON object with a string `reason`.
    public init(data: Data) throws {
        self = try JSONDecoder().decode(APNSErrorResponse.self, from: data)
    }

    /// The body as APNs writes it: `reason`, then `timestamp` when there is one (and an asked-for `explanation`).
    public func encoded() -> Data {
        var object = JSONObject([(key: "reason", value: .string(reason.rawValue))])
        if let timestamp { object["timestamp"] = .number(JSONNumber(Int(timestamp))) }
        if let explanation { object["explanation"] = .string(explanation) }
        return JSONValue.object(object).encoded()
    }
}
