extension APNSReason {
    /// What Apple documents about one reason: its HTTP status, its description and what a client may do.
    public struct Entry: Sendable, Hashable {
        /// The HTTP status APNs sends with the reason.
        public let status: Int
        /// Apple's description of the reason.
        public let summary: String
        /// Whether and how the same notification may be sent again.
        public let retry: APNSRetryAdvice
    }

    /// Every reason Apple documents for device pushes, broadcasts and channel management, with its status, description and retry advice.
    public static let catalog: [APNSReason: Entry] = [
        .badCollapseID: Entry(400, "The collapse identifier exceeds the maximum allowed size.", .never),
        .badDeviceToken: Entry(
            400,
            "The specified device token is invalid. Verify that the request contains a valid token and that the "
                + "token matches the environment.",
            .never
        ),
        .badExpirationDate: Entry(400, "The apns-expiration value is invalid.", .afterFixingRequest),
        .badMessageID: Entry(400, "The apns-id value is invalid.", .afterFixingRequest),
        .badPriority: Entry(400, "The apns-priority value is invalid.", .afterFixingRequest),
        .badTopic: Entry(400, "The apns-topic value is invalid.", .afterFixingRequest),
        .deviceTokenNotForTopic: Entry(400, "The device token doesn't match the specified topic.", .never),
        .duplicateHeaders: Entry(400, "One or more headers are repeated.", .afterFixingRequest),
        .idleTimeout: Entry(400, "Idle timeout.", .onNewConnection),
        .invalidPushType: Entry(400, "The apns-push-type value is invalid.", .afterFixingRequest),
        .missingDeviceToken: Entry(
            400,
            "The device token isn't specified in the request :path. Verify that the :path header contains the "
                + "device token.",
            .afterFixingRequest
        ),
        .missingTopic: Entry(
            400,
            "The apns-topic header of the request isn't specified and is required. The apns-topic header is "
                + "mandatory when the client is connected using a certificate that supports multiple topics.",
            .afterFixingRequest
        ),
        .payloadEmpty: Entry(400, "The message payload is empty.", .afterFixingRequest),
        .topicDisallowed: Entry(400, "Pushing to this topic is not allowed.", .afterFixingRequest),
        .badCertificate: Entry(403, "The certificate is invalid.", .afterFixingRequest),
        .badCertificateEnvironment: Entry(
            403,
            "The client certificate doesn't match the environment.",
            .afterFixingRequest
        ),
        .expiredProviderToken: Entry(
            403,
            "The provider token is stale and a new token should be generated.",
            .withNewProviderToken
        ),
        .forbidden: Entry(403, "The specified action is not allowed.", .never),
        .invalidProviderToken: Entry(
            403,
            "The provider token is not valid, or the token signature can't be verified.",
            .afterFixingRequest
        ),
        .missingProviderToken: Entry(
            403,
            "No provider certificate was used to connect to APNs, and the authorization header is missing or no "
                + "provider token is specified.",
            .afterFixingRequest
        ),
        .unrelatedKeyIDInToken: Entry(
            403,
            "The key ID in the provider token isn't related to the key ID of the token used in the first push of "
                + "this connection. To use this token, open a new connection.",
            .onNewConnection
        ),
        .badEnvironmentKeyIDInToken: Entry(
            403,
            "The key ID in the provider token doesn't match the environment.",
            .afterFixingRequest
        ),
        .badEnvironmentKeyInToken: Entry(
            403,
            "The key ID in the provider token doesn't match the environment.",
            .afterFixingRequest
        ),
        .badPath: Entry(404, "The request contained an invalid :path value.", .afterFixingRequest),
        .methodNotAllowed: Entry(405, "The specified :method value isn't POST.", .afterFixingRequest),
        .expiredToken: Entry(410, "The device token has expired.", .never),
        .unregistered: Entry(
            410,
            "The device token is inactive for the specified topic. There is no need to send further pushes to the "
                + "same device token, unless your application retrieves the same device token.",
            .never
        ),
        .payloadTooLarge: Entry(413, "The message payload is too large.", .never),
        .tooManyProviderTokenUpdates: Entry(
            429,
            "The provider's authentication token is being updated too often. Update the authentication token no "
                + "more than once every 20 minutes.",
            .afterBackoff
        ),
        .tooManyRequests: Entry(
            429,
            "Too many requests were made consecutively to the same device token.",
            .afterBackoff
        ),
        .internalServerError: Entry(500, "An internal server error occurred.", .afterBackoff),
        .serviceUnavailable: Entry(503, "The service is unavailable.", .afterBackoff),
        .shutdown: Entry(503, "The APNs server is shutting down.", .onNewConnection),
        // Broadcast and channel management only.
        .featureNotEnabled: Entry(400, "The feature isn't enabled for this topic.", .never),
        .missingChannelID: Entry(400, "The apns-channel-id header is missing.", .afterFixingRequest),
        .badChannelID: Entry(
            400, "The apns-channel-id header isn't properly encoded, or it's greater than the allowed length.",
            .afterFixingRequest),
        .channelNotRegistered: Entry(
            400, "The apns-channel-id header used in the request doesn't exist.", .never),
        .badRequestParams: Entry(
            400, "The JSON Request payload contained an unrecognizable attribute.", .afterFixingRequest),
        .badRequestPayload: Entry(400, "The JSON Request payload is unparseable.", .afterFixingRequest),
        .missingPushType: Entry(400, "The apns-push-type attribute is missing.", .afterFixingRequest),
        .cannotCreateChannelConfig: Entry(
            400,
            "You have reached the maximum channel limit for your application. Delete channels that you no longer use.",
            .afterFixingRequest),
        .topicMismatch: Entry(
            403,
            "The bundle IDs parsed from your token or certificate don't include the topic present in the path.",
            .afterFixingRequest),
    ]

    /// Whether Apple documents this reason.
    public var isKnown: Bool { Self.catalog[self] != nil }

    /// The HTTP status APNs sends with this reason, or `nil` for a reason Apple does not document.
    public var status: Int? { Self.catalog[self]?.status }

    /// Apple's description of this reason, or `nil` for a reason Apple does not document.
    public var summary: String? { Self.catalog[self]?.summary }

    /// What a client may do after this reason. An unknown reason is judged by the status it came with: 5xx after a
    /// backoff, anything else not without a change.
    public func retryAdvice(status: Int? = nil) -> APNSRetryAdvice {
        if let entry = Self.catalog[self] { return entry.retry }
        if let status, status >= 500 { return .afterBackoff }
        return .afterFixingRequest
    }
}

extension APNSReason.Entry {
    fileprivate init(_ status: Int, _ summary: String, _ retry: APNSRetryAdvice) {
        self.init(status: status, summary: summary, retry: retry)
    }
}
