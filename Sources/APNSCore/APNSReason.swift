/// The `reason` in an APNs error response: why APNs rejected a request.
///
/// An open set, like NIO's `HTTP2ErrorCode`: reasons Apple adds later round-trip unchanged, and their status comes
/// from the response. Each known reason carries its status, Apple's description and what a client may do about it.
public struct APNSReason: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

extension APNSReason {
    public static let badCollapseID = APNSReason(rawValue: "BadCollapseId")
    public static let badDeviceToken = APNSReason(rawValue: "BadDeviceToken")
    public static let badExpirationDate = APNSReason(rawValue: "BadExpirationDate")
    public static let badMessageID = APNSReason(rawValue: "BadMessageId")
    public static let badPriority = APNSReason(rawValue: "BadPriority")
    public static let badTopic = APNSReason(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = APNSReason(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNSReason(rawValue: "DuplicateHeaders")
    public static let idleTimeout = APNSReason(rawValue: "IdleTimeout")
    public static let invalidPushType = APNSReason(rawValue: "InvalidPushType")
    public static let missingDeviceToken = APNSReason(rawValue: "MissingDeviceToken")
    public static let missingTopic = APNSReason(rawValue: "MissingTopic")
    public static let payloadEmpty = APNSReason(rawValue: "PayloadEmpty")
    public static let topicDisallowed = APNSReason(rawValue: "TopicDisallowed")
    public static let badCertificate = APNSReason(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = APNSReason(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = APNSReason(rawValue: "ExpiredProviderToken")
    public static let forbidden = APNSReason(rawValue: "Forbidden")
    public static let invalidProviderToken = APNSReason(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = APNSReason(rawValue: "MissingProviderToken")
    public static let unrelatedKeyIDInToken = APNSReason(rawValue: "UnrelatedKeyIdInToken")
    /// Apple's documented spelling; APNs has been seen sending ``badEnvironmentKeyInToken`` instead.
    public static let badEnvironmentKeyIDInToken = APNSReason(rawValue: "BadEnvironmentKeyIdInToken")
    /// The spelling production APNs has been observed to send for ``badEnvironmentKeyIDInToken``.
    public static let badEnvironmentKeyInToken = APNSReason(rawValue: "BadEnvironmentKeyInToken")
    public static let badPath = APNSReason(rawValue: "BadPath")
    public static let methodNotAllowed = APNSReason(rawValue: "MethodNotAllowed")
    public static let expiredToken = APNSReason(rawValue: "ExpiredToken")
    public static let unregistered = APNSReason(rawValue: "Unregistered")
    public static let payloadTooLarge = APNSReason(rawValue: "PayloadTooLarge")
    public static let tooManyProviderTokenUpdates = APNSReason(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNSReason(rawValue: "TooManyRequests")
    public static let internalServerError = APNSReason(rawValue: "InternalServerError")
    public static let serviceUnavailable = APNSReason(rawValue: "ServiceUnavailable")
    public static let shutdown = APNSReason(rawValue: "Shutdown")
}

/// The reasons only broadcast and channel management requests get.
extension APNSReason {
    public static let featureNotEnabled = APNSReason(rawValue: "FeatureNotEnabled")
    public static let missingChannelID = APNSReason(rawValue: "MissingChannelId")
    public static let badChannelID = APNSReason(rawValue: "BadChannelId")
    public static let channelNotRegistered = APNSReason(rawValue: "ChannelNotRegistered")
    public static let badRequestParams = APNSReason(rawValue: "BadRequestParams")
    public static let badRequestPayload = APNSReason(rawValue: "BadRequestPayload")
    public static let missingPushType = APNSReason(rawValue: "MissingPushType")
    public static let cannotCreateChannelConfig = APNSReason(rawValue: "CannotCreateChannelConfig")
    public static let topicMismatch = APNSReason(rawValue: "TopicMismatch")
}
