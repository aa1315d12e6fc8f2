/// The headers of a broadcast request, `POST /4/broadcasts/apps/<bundle ID>`, each checked against
/// APNs' rules.
///
/// Build one to send (``headerFields``), or validate what a client sent with ``init(validating:)``, which answers as
/// APNs does with the first rule broken.
public struct APNSBroadcastHeaders: Hashable, Sendable {
    /// `apns-channel-id`: the channel whose subscribers get the broadcast.
    public var channelID: APNSChannelID
    /// `apns-priority` (required): 10, 5, or 1.
    public var priority: APNSPriority
    /// `apns-expiration` (required): ``APNSExpiration/immediately`` (`0`, one attempt, never stored) or a date, which
    /// only a Most Recent Message Stored channel accepts.
    public var expiration: APNSExpiration
    /// `apns-request-id`: echoed in the answer; APNs makes one when it is omitted.
    public var requestID: APNSMessageID?

    public init(
        channelID: APNSChannelID, priority: APNSPriority = .immediate, expiration: APNSExpiration = .immediately,
        requestID: APNSMessageID? = nil
    ) {
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
    }

    /// The header names a broadcast or a channel management request carries.
    public enum Name {
        public static let channelID = "apns-channel-id"
        public static let requestID = "apns-request-id"
        public static let pushType = APNSRequestHeaders.Name.pushType
        public static let priority = APNSRequestHeaders.Name.priority
        public static let expiration = APNSRequestHeaders.Name.expiration
        public static let uniqueID = APNSRequestHeaders.Name.uniqueID
        /// The headers APNs reads on a broadcast; a repeat of any of them is `400 DuplicateHeaders`.
        static let all: Set<String> = [
            channelID, requestID, pushType, priority, expiration, APNSRequestHeaders.Name.authorization,
        ]
    }

    /// The headers to send, in a stable order: the push type is always `liveactivity`.
    public var headerFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            (Name.pushType, APNSPushType.liveactivity.rawValue), (Name.channelID, channelID.rawValue),
            (Name.expiration, expiration.headerValue ?? "0"), (Name.priority, String(priority.rawValue)),
        ]
        if let requestID { fields.append((Name.requestID, requestID.rawValue)) }
        return fields
    }

    /// The path of a broadcast for an app.
    public static func path(bundleID: String) -> String { "/4/broadcasts/apps/\(bundleID)" }
}

extension APNSBroadcastHeaders {
    /// Validates a broadcast's header fields as APNs does.
    ///
    /// - Parameter fields: header names (lowercase, as HTTP/2 sends them) and values; others are ignored.
    /// - Throws: ``APNSRequestRejection`` with `DuplicateHeaders`, `BadMessageId`, `MissingPushType`,
    ///   `InvalidPushType`, `MissingChannelId`, `BadChannelId`, `BadPriority` or `BadExpirationDate`.
    public init(validating fields: some Sequence<(name: String, value: String)>) throws(APNSRequestRejection) {
        var given: [String: String] = [:]
        for (name, value) in fields where Name.all.contains(name) {
            guard given.updateValue(value, forKey: name) == nil else {
                throw APNSRequestRejection(
                    .duplicateHeaders, "the header '\(name)' appears more than once; send it once")
            }
        }
        let requestID = try given[Name.requestID].map(Self.parseRequestID)
        guard let pushType = given[Name.pushType] else {
            throw APNSRequestRejection(.missingPushType, "a broadcast needs apns-push-type: liveactivity")
        }
        guard pushType.lowercased() == APNSPushType.liveactivity.rawValue else {
            throw APNSRequestRejection(
                .invalidPushType, "apns-push-type is '\(pushType)'; a broadcast's only push type is liveactivity")
        }
        let channelID = try Self.parseChannelID(given[Name.channelID])
        guard let priorityText = given[Name.priority] else {
            throw APNSRequestRejection(.badPriority, "a broadcast needs apns-priority: 10, 5 or 1")
        }
        let priority = try APNSRequestHeaders.parsePriority(priorityText)
        guard let expirationText = given[Name.expiration] else {
            throw APNSRequestRejection(
                .badExpirationDate,
                "a broadcast needs apns-expiration: 0 (deliver now or never), or a UNIX time on a channel that stores "
                    + "its most recent message")
        }
        let expiration = try APNSRequestHeaders.parseExpiration(expirationText)
        self.init(channelID: channelID, priority: priority, expiration: expiration, requestID: requestID)
    }

    /// Parses `apns-request-id`. - Throws: `BadMessageId` for a value that is not a UUID.
    public static func parseRequestID(_ value: String) throws(APNSRequestRejection) -> APNSMessageID {
        guard let id = APNSMessageID(headerValue: value) else {
            throw APNSRequestRejection(
                .badMessageID,
                "apns-request-id '\(value)' is not a UUID; use the form 123e4567-e89b-12d3-a456-4266554400a0")
        }
        return id
    }

    /// Parses `apns-channel-id`. - Throws: `MissingChannelId` when it is absent, `BadChannelId` when it is not one.
    public static func parseChannelID(_ value: String?) throws(APNSRequestRejection) -> APNSChannelID {
        guard let value else {
            throw APNSRequestRejection(
                .missingChannelID, "the request has no apns-channel-id; use the ID the channel's creation answered")
        }
        guard let id = APNSChannelID(rawValue: value) else {
            throw APNSRequestRejection(.badChannelID, APNSChannelID.problem(with: value) ?? "not a channel ID")
        }
        return id
    }
}
