package import APNSCore
import Foundation

extension AcceptedNotification {
    /// The notification as one JSON object, the form the admin API, the courier and the journal use:
    ///
    /// `{"apns-id", "apns-unique-id", "token", "topic", "push-type", "priority", "expiration", "collapse-id",
    /// "received", ...extra, "payload"}`: `expiration` is the header's UNIX time (`0` for now-or-never, `null` when the
    /// header was absent), `received` is milliseconds since 1970, and `payload` is the JSON object as sent.
    package func json(extra: [(key: String, value: JSONValue)] = []) -> [UInt8] {
        var fields: [(key: String, value: JSONValue)] = [
            ("apns-id", .string(apnsID.lowercasedString)),
            ("apns-unique-id", uniqueID.map { .string($0.lowercasedString) } ?? .null),
            ("token", .string(token.hex)),
            ("topic", .string(topic)),
            ("push-type", .string(pushType.rawValue)),
            ("priority", .number(JSONNumber(priority.rawValue))),
            ("expiration", expiration.headerValue.flatMap(Int.init).map { .number(JSONNumber($0)) } ?? .null),
            ("collapse-id", collapseID.map { .string($0.rawValue) } ?? .null),
            ("received", .number(JSONNumber(receivedAt.millisecondsSince1970))),
        ]
        fields += extra
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320 + payload.count)
        JSONValue.object(JSONObject(fields)).write(into: &bytes)
        bytes.removeLast()  // the closing brace; the payload goes in raw, as sent
        bytes += Array(#","payload":"#.utf8)
        bytes += payload
        bytes.append(UInt8(ascii: "}"))
        return bytes
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
            guard let uuid = UUID(uuidString: text) else { throw GatewayDataError("notification: bad \"\(key)\"") }
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
    }
}

extension Date {
    /// Whole milliseconds since 1970, as APNs writes times (clamped to `Int`'s range).
    package var millisecondsSince1970: Int { (timeIntervalSince1970 * 1000).rounded(.down).clampedInt }

    package init(millisecondsSince1970 milliseconds: Int) {
        self.init(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }
}
