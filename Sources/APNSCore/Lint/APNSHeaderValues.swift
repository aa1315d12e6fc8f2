import Foundation

/// The `apns-*` header values of a request as someone typed them, not yet checked: what `herald send` and
/// `herald payload lint` take as flags and the console's Compose page sends as JSON (`pushType`, `priority`, `topic`,
/// `expiration`, `collapseID`, `apnsID`), checked by ``APNSLinter`` and parsed by ``APNSRequestHeaders``.
public struct APNSHeaderValues: Codable, Hashable, Sendable {
    /// `apns-push-type`; `nil` to infer it from the payload as iOS does.
    public var pushType: String?
    /// `apns-priority`.
    public var priority: String?
    /// `apns-topic`.
    public var topic: String?
    /// `apns-expiration`.
    public var expiration: String?
    /// `apns-collapse-id`.
    public var collapseID: String?
    /// `apns-id`.
    public var apnsID: String?

    /// The values given; `nil` for a header not given.
    public init(
        pushType: String? = nil, priority: String? = nil, topic: String? = nil, expiration: String? = nil,
        collapseID: String? = nil, apnsID: String? = nil
    ) {
        self.pushType = pushType
        self.priority = priority
        self.topic = topic
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }

    /// The same values, an empty one taken as not given (a form's empty field).
    public var withoutBlanks: APNSHeaderValues {
        let given = { (text: String?) in text.flatMap { $0.isEmpty ? nil : $0 } }
        return APNSHeaderValues(
            pushType: given(pushType), priority: given(priority), topic: given(topic), expiration: given(expiration),
            collapseID: given(collapseID), apnsID: given(apnsID))
    }

    /// The topic: the one given, or else the app's `bundleID` with the push type's suffix (`.voip`,
    /// `.push-type.liveactivity`, ...) when one is known.
    public func topic(defaultBundleID bundleID: String?) -> String? {
        topic
            ?? bundleID.map { bundleID in
                pushType.flatMap { APNSPushType(rawValue: $0).topic(forBundleID: bundleID) } ?? bundleID
            }
    }
}
