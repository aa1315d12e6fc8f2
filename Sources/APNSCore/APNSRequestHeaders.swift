/// The `apns-*` headers of one notification request, each already checked against APNs' rules.
///
/// Build one to send (``headerFields``), or validate what a client sent with
/// ``init(validating:)``, which answers as APNs does with the first rule broken.
public struct APNSRequestHeaders: Hashable, Sendable {
    /// `apns-push-type`; `nil` when the header is omitted (iOS then treats the push as an alert or background push
    /// by its payload).
    public var pushType: APNSPushType?
    /// `apns-priority`; `nil` when omitted, which APNs treats as 10.
    public var priority: APNSPriority?
    /// `apns-expiration`.
    public var expiration: APNSExpiration
    /// `apns-collapse-id`.
    public var collapseID: APNSCollapseID?
    /// `apns-id`; APNs generates one when omitted.
    public var apnsID: APNSMessageID?
    /// `apns-topic`: the bundle ID plus the push type's suffix. Required with token authentication.
    public var topic: String?

    public init(
        pushType: APNSPushType? = nil,
        priority: APNSPriority? = nil,
        expiration: APNSExpiration = .storagePolicy,
        collapseID: APNSCollapseID? = nil,
        apnsID: APNSMessageID? = nil,
        topic: String? = nil
    ) {
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.topic = topic
    }

    /// The priority APNs applies: the header's, or 10 when it is omitted.
    public var effectivePriority: APNSPriority { priority ?? .immediate }

    /// The header names APNs reads, lowercase as HTTP/2 sends them.
    public enum Name {
        public static let pushType = "apns-push-type"
        public static let priority = "apns-priority"
        public static let expiration = "apns-expiration"
        public static let collapseID = "apns-collapse-id"
        public static let apnsID = "apns-id"
        public static let topic = "apns-topic"
        public static let authorization = "authorization"
        public static let uniqueID = "apns-unique-id"
        /// Every request header APNs reads; a repeat of any of them is `400 DuplicateHeaders`.
        public static let all: Set<String> = [pushType, priority, expiration, collapseID, apnsID, topic, authorization]
    }

    /// The headers to send, in a stable order; omitted values produce no field.
    public var headerFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if let pushType { fields.append((Name.pushType, pushType.rawValue)) }
        if let apnsID { fields.append((Name.apnsID, apnsID.rawValue)) }
        if let value = expiration.headerValue { fields.append((Name.expiration, value)) }
        if let priority { fields.append((Name.priority, String(priority.rawValue))) }
        if let topic { fields.append((Name.topic, topic)) }
        if let collapseID { fields.append((Name.collapseID, collapseID.rawValue)) }
        return fields
    }
}

extension APNSRequestHeaders {
    /// Validates request header fields as APNs does and keeps the `apns-*` ones.
    ///
    /// Other headers are ignored, as APNs ignores them. Checks run in a fixed order and the first broken rule is
    /// thrown, as APNs answers one reason per request.
    ///
    /// - Parameter fields: header names (any case) and values; pseudo-headers are skipped.
    /// - Throws: ``APNSRequestRejection`` with `DuplicateHeaders`, `InvalidPushType`, `BadTopic`, `BadPriority`,
    ///   `BadMessageId`, `BadExpirationDate` or `BadCollapseId`.
    public init(validating fields: some Sequence<(name: String, value: String)>) throws(APNSRequestRejection) {
        var given = GivenFields()
        for (name, value) in fields {
            // HTTP/2 field names are lowercase already; only a name with capitals pays for a lowered copy.
            let lowered =
                name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? name.lowercased() : name
            try given.take(lowered, value)
        }
        self.init()
        pushType = try given.pushType.map(Self.parsePushType)
        topic = try given.topic.map(Self.parseTopic)
        priority = try given.priority.map(Self.parsePriority)
        apnsID = try given.apnsID.map(Self.parseAPNSID)
        expiration = try given.expiration.map(Self.parseExpiration) ?? .storagePolicy
        collapseID = try given.collapseID.map(Self.parseCollapseID)
    }

    /// The raw values of the headers APNs reads, each allowed once.
    private struct GivenFields {
        var pushType: String?
        var topic: String?
        var priority: String?
        var apnsID: String?
        var expiration: String?
        var collapseID: String?
        var authorization: String?

        /// Keeps `value` when `name` is a header APNs reads. - Throws: `DuplicateHeaders` for a second one.
        mutating func take(_ name: String, _ value: String) throws(APNSRequestRejection) {
            switch name {
            case Name.pushType: try Self.keep(value, in: &pushType, name)
            case Name.topic: try Self.keep(value, in: &topic, name)
            case Name.priority: try Self.keep(value, in: &priority, name)
            case Name.apnsID: try Self.keep(value, in: &apnsID, name)
            case Name.expiration: try Self.keep(value, in: &expiration, name)
            case Name.collapseID: try Self.keep(value, in: &collapseID, name)
            case Name.authorization: try Self.keep(value, in: &authorization, name)
            default: break
            }
        }

        private static func keep(_ value: String, in field: inout String?, _ name: String) throws(APNSRequestRejection)
        {
            guard field == nil else {
                throw APNSRequestRejection(
                    .duplicateHeaders, "the header '\(name)' appears more than once; send it once")
            }
            field = value
        }
    }

    /// Parses `apns-push-type`. - Throws: `InvalidPushType` for a value Apple does not document.
    public static func parsePushType(_ value: String) throws(APNSRequestRejection) -> APNSPushType {
        let type = APNSPushType(rawValue: value)
        guard type.isKnown else {
            let known = APNSPushType.allKnown.map(\.rawValue).joined(separator: ", ")
            throw APNSRequestRejection(.invalidPushType, "apns-push-type '\(value)' is not one of: \(known)")
        }
        return type
    }

    /// Parses `apns-topic`. - Throws: `BadTopic` for a value that cannot be a bundle ID with a suffix.
    public static func parseTopic(_ value: String) throws(APNSRequestRejection) -> String {
        if let problem = APNSTopic.problem(with: value) { throw APNSRequestRejection(.badTopic, problem) }
        return value
    }

    /// Parses `apns-priority`. - Throws: `BadPriority` for anything but 10, 5 or 1.
    public static func parsePriority(_ value: String) throws(APNSRequestRejection) -> APNSPriority {
        try parsed(APNSPriority(headerValue: value), else: .badPriority, "apns-priority '\(value)' is not 10, 5 or 1")
    }

    /// Parses `apns-id`. - Throws: `BadMessageId` for a value that is not a UUID.
    public static func parseAPNSID(_ value: String) throws(APNSRequestRejection) -> APNSMessageID {
        try parsed(
            APNSMessageID(headerValue: value), else: .badMessageID,
            "apns-id '\(value)' is not a UUID; use the form 123e4567-e89b-12d3-a456-4266554400a0")
    }

    /// Parses `apns-expiration`. - Throws: `BadExpirationDate` for anything but a whole number of seconds since 1970.
    public static func parseExpiration(_ value: String) throws(APNSRequestRejection) -> APNSExpiration {
        try parsed(
            APNSExpiration(headerValue: value), else: .badExpirationDate,
            "apns-expiration '\(value)' is not a UNIX time in whole seconds (0 means deliver now or never)")
    }

    /// Parses `apns-collapse-id`. - Throws: `BadCollapseId` when it is longer than 64 bytes.
    public static func parseCollapseID(_ value: String) throws(APNSRequestRejection) -> APNSCollapseID {
        try parsed(
            APNSCollapseID(rawValue: value), else: .badCollapseID,
            "apns-collapse-id is \(value.utf8.count) bytes; APNs accepts at most \(APNSCollapseID.maximumLength)")
    }

    /// `value`, or the rejection `reason` with `message` when the header did not parse.
    private static func parsed<Value>(
        _ value: Value?, else reason: APNSReason, _ message: @autoclosure () -> String
    ) throws(APNSRequestRejection) -> Value {
        guard let value else { throw APNSRequestRejection(reason, message()) }
        return value
    }
}
