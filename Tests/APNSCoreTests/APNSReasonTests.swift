import Testing

@testable import APNSCore

@Suite("Reasons, statuses and retry advice")
struct APNSReasonTests {
    static let documented: [(String, Int, APNSRetryAdvice)] = [
        ("BadCollapseId", 400, .never), ("BadDeviceToken", 400, .never),
        ("BadExpirationDate", 400, .afterFixingRequest), ("BadMessageId", 400, .afterFixingRequest),
        ("BadPriority", 400, .afterFixingRequest), ("BadTopic", 400, .afterFixingRequest),
        ("DeviceTokenNotForTopic", 400, .never), ("DuplicateHeaders", 400, .afterFixingRequest),
        ("IdleTimeout", 400, .onNewConnection), ("InvalidPushType", 400, .afterFixingRequest),
        ("MissingDeviceToken", 400, .afterFixingRequest), ("MissingTopic", 400, .afterFixingRequest),
        ("PayloadEmpty", 400, .afterFixingRequest), ("TopicDisallowed", 400, .afterFixingRequest),
        ("BadCertificate", 403, .afterFixingRequest), ("BadCertificateEnvironment", 403, .afterFixingRequest),
        ("ExpiredProviderToken", 403, .withNewProviderToken), ("Forbidden", 403, .never),
        ("InvalidProviderToken", 403, .afterFixingRequest), ("MissingProviderToken", 403, .afterFixingRequest),
        ("UnrelatedKeyIdInToken", 403, .onNewConnection), ("BadEnvironmentKeyIdInToken", 403, .afterFixingRequest),
        ("BadEnvironmentKeyInToken", 403, .afterFixingRequest), ("BadPath", 404, .afterFixingRequest),
        ("MethodNotAllowed", 405, .afterFixingRequest), ("ExpiredToken", 410, .never), ("Unregistered", 410, .never),
        ("PayloadTooLarge", 413, .never), ("TooManyProviderTokenUpdates", 429, .afterBackoff),
        ("TooManyRequests", 429, .afterBackoff), ("InternalServerError", 500, .afterBackoff),
        ("ServiceUnavailable", 503, .afterBackoff), ("Shutdown", 503, .onNewConnection),
        // Broadcast and channel management (reference K.3).
        ("FeatureNotEnabled", 400, .never), ("MissingChannelId", 400, .afterFixingRequest),
        ("BadChannelId", 400, .afterFixingRequest), ("ChannelNotRegistered", 400, .never),
        ("BadRequestParams", 400, .afterFixingRequest), ("BadRequestPayload", 400, .afterFixingRequest),
        ("MissingPushType", 400, .afterFixingRequest), ("CannotCreateChannelConfig", 400, .afterFixingRequest),
        ("TopicMismatch", 403, .afterFixingRequest),
    ]

    @Test("every documented reason has its status and retry advice", arguments: documented)
    func documentedReason(name: String, status: Int, retry: APNSRetryAdvice) {
        let reason = APNSReason(rawValue: name)
        #expect(reason.isKnown)
        #expect(reason.status == status)
        #expect(reason.retryAdvice() == retry)
        #expect(reason.summary?.isEmpty == false)
    }

    @Test("the catalog has exactly the documented reasons")
    func catalogIsComplete() {
        #expect(Set(APNSReason.catalog.keys.map(\.rawValue)) == Set(Self.documented.map(\.0)))
    }

    @Test("Apple's final reasons are never retried automatically")
    func finalReasons() {
        for reason in [
            APNSReason.badDeviceToken, .deviceTokenNotForTopic, .forbidden, .expiredToken, .unregistered,
            .payloadTooLarge,
        ] {
            #expect(!reason.retryAdvice().allowsAutomaticRetry, "\(reason)")
        }
        for reason in [APNSReason.tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown] {
            #expect(reason.retryAdvice().allowsAutomaticRetry, "\(reason)")
        }
    }

    @Test("an unknown reason round-trips and is judged by its status")
    func unknownReason() throws {
        let reason = APNSReason(rawValue: "NewReasonFrom2030")
        #expect(!reason.isKnown)
        #expect(reason.status == nil)
        #expect(reason.retryAdvice(status: 503) == .afterBackoff)
        #expect(reason.retryAdvice(status: 400) == .afterFixingRequest)
        #expect(APNSRequestRejection(reason, "x").status == 400)
    }
}
