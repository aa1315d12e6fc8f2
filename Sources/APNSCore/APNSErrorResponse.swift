public import Foundation

/// The JSON body of an APNs error response, `{"reason": "...", "timestamp": 1700000000000}`, also sent in GOAWAY
/// frames.
public struct APNSErrorResponse: Hashable, Sendable, Codable {
    /// Why APNs rejected the request.
    public var reason: APNSReason
    /// For 410 only: when APNs learned the token stopped being valid for the topic, in milliseconds since 1970.
    public var timestamp: Int64?

    public init(reason: APNSReason, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }

    /// A 410 body with the moment the token stopped being valid.
    public init(reason: APNSReason, invalidSince date: Date) {
        self.init(reason: reason, timestamp: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
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

    /// The body as APNs writes it: `reason`, then `timestamp` when there is one.
    public func encoded() -> Data {
        var object = JSONObject([(key: "reason", value: .string(reason.rawValue))])
        if let timestamp { object["timestamp"] = .number(JSONNumber(Int(timestamp))) }
        return JSONValue.object(object).encoded()
    }
}
