import ProviderStorage

/// APNs' answers about the app's credentials or topic rather than the device: every delivery of the app would get the
/// same answer until its credentials change, so the first such answer pauses the app (its deliveries wait, spending
/// no attempt) instead of ending a whole broadcast. Changing the app's credentials or resuming it lets it go on.
enum CredentialPause {
    /// The reasons that pause the app (Apple's documented reasons about the provider token, the certificate and the
    /// topic).
    static let reasons: Set<String> = [
        "ExpiredProviderToken", "InvalidProviderToken", "MissingProviderToken", "BadCertificate",
        "BadCertificateEnvironment", "Forbidden", "TopicDisallowed", "BadEnvironmentKeyIdInToken",
        "UnrelatedKeyIdInToken",
    ]

    /// The `reason` a delivery waits with while its app is paused for APNs' `reason`.
    static func parkingReason(_ reason: String) -> String { prefix + reason }

    /// APNs' reason in a delivery's parking reason, when it waits for its app's credentials.
    static func apnsReason(parkedAs reason: String?) -> String? {
        guard let reason, reason.hasPrefix(prefix) else { return nil }
        return String(reason.dropFirst(prefix.count))
    }

    /// Every reason a paused app's deliveries may wait with: an operator's pause and each credential pause.
    static var everyParkingReason: [String] { [DeliveryVerdict.pausedReason] + reasons.sorted().map(parkingReason) }

    private static let prefix = "AppCredentials:"
}
