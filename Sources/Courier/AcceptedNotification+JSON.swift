package import APNSCore
import Foundation

extension AcceptedNotification {
    /// The notification as one JSON object, the form the admin API, the courier and the journal use:
    ///
    /// `{"apns-id", "apns-unique-id", "token", "topic", "push-type", "priority", "expiration", "collapse-id",
    /// "received", "traceparent"?, ...extra, "payload"}`: `expiration` is the header's UNIX time (`0` for now-or-never, `null` when the
    /// header was absent), `received` is milliseconds since 1970, and `payload` is the JSON object as sent.
    package func json(extra: [(key: String, value: JSONValue)] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320 + payload.count)
        appendJSON(to: &bytes, extra: extra)
        return bytes
    }

    /// Appends ``json(extra:)``'s bytes to `bytes`, field by field: the journal writes one for every stored push, so no
    /// `JSONValue` is built on the way.
    package func appendJSON(to bytes: inout [UInt8], extra: [(key: String, value: JSONValue)] = []) {
        bytes.append(contentsOf: #"{"apns-id":""#.utf8)
        apnsID.appendLowercased(to: &bytes)
        bytes.append(contentsOf: #"","apns-unique-id":"#.utf8)
        if let uniqueID {
            bytes.append(UInt8(ascii: "\""))
            uniqueID.appendLowercased(to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
        bytes.append(contentsOf: #","token":""#.utf8)
        bytes.append(contentsOf: token.hex.utf8)
        bytes.append(contentsOf: #"","topic":"#.utf8)
        JSONValue.writeString(topic, into: &bytes)
        bytes.append(contentsOf: #","push-type":"#.utf8)
        JSONValue.writeString(pushType.rawValue, into: &bytes)
        bytes.append(contentsOf: #","priority":"#.utf8)
        bytes.append(contentsOf: String(priority.rawValue).utf8)
        bytes.append(contentsOf: #","expiration":"#.utf8)
        bytes.append(contentsOf: (expiration.headerValue.flatMap(Int.init).map { String($0) } ?? "null").utf8)
        bytes.append(contentsOf: #","collapse-id":"#.utf8)
        if let collapseID {
            JSONValue.writeString(collapseID.rawValue, into: &bytes)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
        bytes.append(contentsOf: #","received":"#.utf8)
        bytes.append(contentsOf: String(receivedAt.millisecondsSince1970).utf8)
        if let traceParent {
            bytes.append(contentsOf: #","traceparent":"#.utf8)
            JSONValue.writeString(traceParent, into: &bytes)
        }
        for (key, value) in extra {
            bytes.append(UInt8(ascii: ","))
            JSONValue.writeString(key, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            value.write(into: &bytes)
        }
        // The payload goes in raw, as sent.
        bytes.append(contentsOf: #","payload":"#.utf8)
        bytes.append(contentsOf: payload)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Reads the form ``json(extra:)`` writes.
    ///
    /// - Throws: ``GatewayDataError`` naming the field that is missing or wrong.
    package init(json object: JSONObject) throws(GatewayDataError) {
        func field(_ key: String) throws(GatewayDataError) -> JSONValue {
            guard let value = object[key] else { throw GatewayDataError("notification: no \"\(key)\"") }
            return value
        }
        func uuid(_ key: String) throws(GatewayDataError) -> UUID? {
            guard case .string(let text) = try field(key) else { return nil }
            guard let uuid = UUIDText.parse(text) else { throw GatewayDataError("notification: bad \"\(key)\"") }
            return uuid
        }
        guard let apnsID = try uuid("apns-id") else { throw GatewayDataError("notification: no \"apns-id\"") }
        guard let tokenText = try field("token").string, let token = try? APNSDeviceToken(hex: tokenText) else {
            throw GatewayDataError("notification: bad \"token\"")
        }
        guard let topic = try field("topic").string, let pushType = try field("push-type").string,
            let priority = try field("priority").number?.intValue,
            let received = try field("received").number?.intValue,
            case .object(let payload) = try field("payload")
        else { throw GatewayDataError("notification \(apnsID): a field has the wrong type") }
        let expiration: APNSExpiration
        switch try field("expiration") {
        case .null: expiration = .storagePolicy
        case .number(let seconds):
            guard let parsed = APNSExpiration(headerValue: seconds.literal) else {
                throw GatewayDataError("notification \(apnsID): bad \"expiration\"")
            }
            expiration = parsed
        default: throw GatewayDataError("notification \(apnsID): bad \"expiration\"")
        }
        self.init(
            apnsID: apnsID,
            uniqueID: try uuid("apns-unique-id"),
            token: token,
            topic: topic,
            pushType: APNSPushType(rawValue: pushType),
            priority: APNSPriority(rawValue: priority),
            expiration: expiration,
            collapseID: object["collapse-id"]?.string.flatMap(APNSCollapseID.init(rawValue:)),
            payload: Array(JSONValue.object(payload).encoded()),
            receivedAt: Date(millisecondsSince1970: received)
        )
        traceParent = object["traceparent"]?.string.flatMap { $0.utf8.count <= 128 ? $0 : nil }
    }
}

extension Date {
    /// Whole milliseconds since 1970, as APNs writes times (clamped to `Int`'s range).
    package var millisecondsSince1970: Int { (timeIntervalSince1970 * 1000).rounded(.down).clampedInt }

    package init(millisecondsSince1970 milliseconds: Int) {
        self.init(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }
}
