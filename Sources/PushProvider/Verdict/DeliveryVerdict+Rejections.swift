import APNSCore
import ProviderStorage

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
        if reason == APNSReachability.unreachableReason {
            return .init(
                .gaveUp,
                "never sent: APNs could not be reached (no connection) until the notification expired (its "
                    + "apns-expiration, or \(Int(APNSReachability.defaultWait / 3600)) hours without one)",
                next: "check the provider's route to APNs (herald doctor --app); create it again if it still matters")
        }
        if reason == PreparedBatch.quietHoursReason {
            return .init(
                .quietHours,
                "not sent: it fell in the device's quiet hours (in its own time zone), and the quiet window drops "
                    + "alerts rather than hold them",
                next: "send what must go through as time-sensitive (interruption-level), give the notification "
                    + "\"quietHours\": false, or make the window wait: PATCH /v1/apps/{id} {\"quietHours\": {..., "
                    + "\"action\": \"wait\"}}")
        }
        if reason == PreparedBatch.cappedReason {
            return .init(
                .capped,
                "not sent: its user (or device) had already got as many notifications of its capCategory as the "
                    + "app's frequency cap allows in the cap's window",
                next: "send what must go through without a capCategory, or as time-sensitive (interruption-level); "
                    + "or raise the cap: PATCH /v1/apps/{id} {\"frequencyCaps\": [...]}")
        }
        if reason == PreparedBatch.expiredReason {
            return .init(
                .gaveUp,
                "never sent: its apns-expiration passed while it waited (its app paused, APNs unreachable, or its "
                    + "retries), and APNs would not have kept it either",
                next: "create it again with a later apns-expiration (expiration) if it still matters")
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
            .rejected, "rejected by APNs: \(answer)" + (APNSReason(rawValue: reason).meaning.map { ": \($0)" } ?? ""),
            next: APNSReason(rawValue: reason).change
                ?? APNSReason.catalog[APNSReason(rawValue: reason)].map { "Apple: \($0.summary)" })
    }
}
