extension APNSReason {
    /// What the reason means for the push it answered, where Apple's words do not say it plainly: Herald's own
    /// knowledge, shown by `herald why`, `herald send` and the verdicts whichever APNs answered.
    package var meaning: String? { Self.meanings[rawValue] }

    /// What to change so the next push is accepted.
    package var change: String? { Self.changes[rawValue] }

    private static let meanings: [String: String] = [
        "BadDeviceToken": "the token is not one of this environment's (a production token sent to the sandbox, or the "
            + "other way), or not a token at all",
        "DeviceTokenNotForTopic": "the token belongs to another app than the topic",
        "TopicDisallowed": "the key or certificate may not send to this topic",
        "PayloadTooLarge": "the payload is over 4 KB (5 KB for VoIP)",
        "BadCollapseId": "the collapse ID is over 64 bytes",
        "BadExpirationDate": "apns-expiration is not a UNIX time",
        "InvalidProviderToken": "the provider token's key ID, team ID or signature is not one APNs knows",
        "ExpiredProviderToken": "the provider token is over an hour old (or the clock is behind)",
        "BadEnvironmentKeyIdInToken": "the key is limited to the other environment",
        "TooManyProviderTokenUpdates": "the provider token on this connection changed again within 20 minutes (a "
            + "server that signs a new JWT for every request gets this from its second push on)",
        "BadEnvironmentKeyInToken": "the key is limited to the other environment",
    ]

    private static let changes: [String: String] = [
        "BadDeviceToken": "send it to the environment the token is from: Xcode builds use the sandbox, TestFlight and "
            + "the App Store production (herald doctor --token T says which)",
        "DeviceTokenNotForTopic": "send with the topic of the app that registered the token (its bundle ID)",
        "TopicDisallowed": "use a key of the app's team, or a certificate for this bundle ID",
        "PayloadTooLarge": "make the payload smaller (herald payload lint counts the bytes)",
        "BadCollapseId": "use a collapse ID of at most 64 bytes",
        "BadExpirationDate": "give apns-expiration as UNIX seconds",
        "InvalidProviderToken":
            "check the team ID, the key ID and that the key is theirs (herald doctor checks all three)",
        "ExpiredProviderToken": "set the provider's clock right (timedatectl set-ntp true)",
        "BadEnvironmentKeyIdInToken": "use a key for both environments, or send to the key's environment",
        "TooManyProviderTokenUpdates": "reuse one token for up to an hour; make a new one at most every 20 minutes "
            + "(sign once, keep it, and replace it after 20 to 60 minutes)",
        "BadEnvironmentKeyInToken": "use a key for both environments, or send to the key's environment",
        "InvalidPushType": "use a push type APNs knows (alert, background, liveactivity, ...)",
        "BadPriority": "use priority 10, 5 or 1",
    ]
}
