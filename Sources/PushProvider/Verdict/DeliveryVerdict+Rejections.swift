import APNSCore

extension DeliveryVerdict {
    /// APNs refused it, or the provider gave up: the reason in words and what to change.
    static func rejection(_ trace: DeliveryTrace) -> DeliveryVerdict {
        let reason = trace.reason ?? "no reason"
        let answer = [trace.status.map(String.init), trace.reason].compactMap { $0 }.joined(separator: " ")
        if trace.status == 410 || reason == "Unregistered" || reason == "ExpiredToken" {
            let since = trace.answeredAt.map { " (answered \(Self.time($0)))" } ?? ""
            return .init(
                .tokenGone,
                "APNs answered \(answer)\(since): the token is no longer valid; the app was removed from the device "
                    + "or its token replaced. The provider stopped sending to it",
                next: "nothing to do: the app registers a new token when it runs again")
        }
        if trace.status == nil || [429, 500, 503].contains(trace.status) {
            return .init(
                .gaveUp,
                "sent \(trace.attempts) times; APNs answered \(answer.isEmpty ? "nothing" : answer) the last time, "
                    + "and the provider gave up",
                next: trace.status == 429
                    ? "send to this device less often (TooManyRequests is per device token)"
                    : "APNs or the network was failing: send it again later")
        }
        return .init(
            .rejected, "rejected by APNs: \(answer)" + (Self.meaning[reason].map { ": \($0)" } ?? ""),
            next: Self.change[reason]
                ?? APNSReason.catalog[APNSReason(rawValue: reason)].map { "Apple: \($0.summary)" })
    }

    /// What a reason means for this push, where Apple's words do not say it plainly.
    private static let meaning: [String: String] = [
        "BadDeviceToken": "the token is not one of this environment's (a production token sent to the sandbox, or the "
            + "other way), or not a token at all",
        "DeviceTokenNotForTopic": "the token belongs to another app than the topic",
        "TopicDisallowed": "the key or certificate may not send to this topic",
        "PayloadTooLarge": "the payload is over 4 KB (5 KB for VoIP)",
        "BadCollapseId": "the collapse ID is over 64 bytes",
        "BadExpirationDate": "apns-expiration is not a UNIX time",
        "InvalidProviderToken": "the provider token's key ID, team ID or signature is not one APNs knows",
        "ExpiredProviderToken": "the provider token is over an hour old (or the clock is behind)",
        "BadEnvironmentKeyInToken": "the key is limited to the other environment",
    ]

    /// What to change, by reason.
    private static let change: [String: String] = [
        "BadDeviceToken": "send it to the environment the token is from: Xcode builds use the sandbox, TestFlight and "
            + "the App Store production (herald doctor --token T says which)",
        "DeviceTokenNotForTopic": "send with the topic of the app that registered the token (its bundle ID)",
        "TopicDisallowed": "use a key of the app's team, or a certificate for this bundle ID",
        "PayloadTooLarge": "make the payload smaller (herald payload lint counts the bytes)",
        "BadCollapseId": "use a collapse ID of at most 64 bytes",
        "BadExpirationDate": "give apns-expiration as UNIX seconds",
        "InvalidProviderToken": "check the app's team ID, key ID and key (herald doctor --app ID)",
        "ExpiredProviderToken": "set the provider's clock right (timedatectl set-ntp true)",
        "BadEnvironmentKeyInToken": "use a key for both environments, or send to the key's environment",
        "InvalidPushType": "use a push type APNs knows (alert, background, liveactivity, ...)",
        "BadPriority": "use priority 10, 5 or 1",
    ]
}
