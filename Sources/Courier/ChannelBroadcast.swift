package import APNSCore
package import Foundation

/// A broadcast the gateway accepted (answered 200) on a channel: what it fans out to the channel's subscribers and,
/// on a Most Recent Message Stored channel, keeps for devices that subscribe later.
package struct ChannelBroadcast: Sendable, Hashable {
    /// The `apns-request-id` the gateway answered with.
    package let requestID: UUID
    /// The `apns-unique-id` the gateway answered with; devices acknowledge by it.
    package let uniqueID: UUID
    /// The channel it was sent on.
    package let channelID: APNSChannelID
    /// The app whose channel it is.
    package let bundleID: String
    /// The `apns-priority`.
    package let priority: APNSPriority
    /// The `apns-expiration`: `.immediately` or a date.
    package let expiration: APNSExpiration
    /// The JSON payload as sent.
    package let payload: [UInt8]
    /// When the gateway accepted it.
    package let receivedAt: Date

    package init(
        requestID: UUID, uniqueID: UUID, channelID: APNSChannelID, bundleID: String, priority: APNSPriority,
        expiration: APNSExpiration, payload: [UInt8], receivedAt: Date
    ) {
        self.requestID = requestID
        self.uniqueID = uniqueID
        self.channelID = channelID
        self.bundleID = bundleID
        self.priority = priority
        self.expiration = expiration
        self.payload = payload
        self.receivedAt = receivedAt
    }

    /// The last moment a stored copy may still be delivered: its expiration, at most 8 hours after it was accepted;
    /// the moment it was accepted for `apns-expiration: 0`.
    package var deadline: Date {
        let limit = receivedAt.addingTimeInterval(
            TimeInterval(APNSChannelStoragePolicy.storagePeriod.components.seconds))
        switch expiration {
        case .at(let date): return min(date, limit)
        case .immediately: return receivedAt
        case .storagePolicy: return limit
        }
    }

    /// The broadcast as one JSON object, the form the courier and the journal use (docs/courier.md):
    /// `{"apns-request-id", "apns-unique-id", "channel-id", "bundle-id", "priority", "expiration", "received",
    /// ...extra, "payload"}`.
    package func json(extra: [(key: String, value: JSONValue)] = []) -> [UInt8] {
        var fields: [(key: String, value: JSONValue)] = extra
        fields += [
            ("apns-request-id", .string(requestID.lowercasedString)),
            ("apns-unique-id", .string(uniqueID.lowercasedString)),
            ("channel-id", .string(channelID.rawValue)),
            ("bundle-id", .string(bundleID)),
            ("priority", .number(JSONNumber(priority.rawValue))),
            ("expiration", .number(JSONNumber(Int(expiration.headerValue ?? "0") ?? 0))),
            ("received", .number(JSONNumber(receivedAt.millisecondsSince1970))),
        ]
        var bytes = Array(JSONValue.object(JSONObject(fields)).encoded())
        bytes.removeLast()
        bytes += Array(#","payload":"#.utf8)
        bytes += payload
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Reads the form ``json(extra:)`` writes.
    ///
    /// - Throws: ``GatewayDataError`` naming the field that is missing or wrong.
    package init(json object: JSONObject) throws(GatewayDataError) {
        guard let requestID = object["apns-request-id"]?.string.flatMap(UUID.init(uuidString:)),
            let uniqueID = object["apns-unique-id"]?.string.flatMap(UUID.init(uuidString:)),
            let channelID = object["channel-id"]?.string.flatMap(APNSChannelID.init(rawValue:)),
            let bundleID = object["bundle-id"]?.string,
            let priority = object["priority"]?.number?.intValue,
            let expiration = (object["expiration"]?.number?.literal).flatMap(APNSExpiration.init(headerValue:)),
            let received = object["received"]?.number?.intValue,
            case .object(let payload)? = object["payload"]
        else { throw GatewayDataError("broadcast: a field is missing or has the wrong type") }
        self.init(
            requestID: requestID, uniqueID: uniqueID, channelID: channelID, bundleID: bundleID,
            priority: APNSPriority(rawValue: priority), expiration: expiration,
            payload: Array(JSONValue.object(payload).encoded()), receivedAt: Date(millisecondsSince1970: received))
    }
}
