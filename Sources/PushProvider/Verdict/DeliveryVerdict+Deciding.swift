import APNSCore
package import Foundation
package import ProviderStorage

extension DeliveryVerdict {
    /// The verdict for one delivery.
    ///
    /// - Parameters:
    ///   - trace: what the provider recorded and the device reported.
    ///   - gateway: the local APNs' log of the push, when the far side is the local APNs and it was asked.
    ///   - now: the provider's clock.
    /// - Returns: the verdict; undecided (``decided`` false) while it waits for the queue, APNs or the device.
    package static func of(_ trace: DeliveryTrace, gateway: GatewayLogEntry? = nil, now: Date) -> DeliveryVerdict {
        switch trace.state {
        case .queued: return waiting(trace, now: now)
        case .leased:
            return .init(
                .sending, "being sent (attempt \(trace.attempts)); APNs has not answered yet",
                waitingFor: "APNs' answer")
        case .rejected: return rejection(trace)
        case .accepted: return accepted(trace, gateway: gateway)
        case .cancelled:
            let at = trace.answeredAt.map { " at \(Self.time($0))" } ?? ""
            return .init(
                .cancelled, "never sent: its notification was cancelled\(at) (DELETE /v1/notifications/{id})",
                next: "nothing to do; create the notification again if it still matters")
        }
    }

    /// The verdict for a push the provider did not send (`herald send`, another provider) from the local APNs' log
    /// alone: APNs' answer and what followed, up to the device's acknowledgement.
    package static func of(gateway entry: GatewayLogEntry) -> DeliveryVerdict {
        if let rejected = entry.events.first(where: { $0.event == "rejected" }) {
            // The same words and fix `herald send` printed for the reason.
            // The log's detail is the reason, then what the local APNs said of it ("BadDeviceToken: no device ...").
            let reason = APNSReason(rawValue: String((rejected.detail ?? "").prefix { $0 != ":" }))
            let meaning = reason.meaning.map { " (\($0))" } ?? ""
            return .init(
                .rejected, "rejected by APNs: \(rejected.detail ?? "no reason")\(meaning)",
                next: reason.change ?? APNSReason.catalog[reason].map { "Apple: \($0.summary)" }
                    ?? "fix what the reason names and send again")
        }
        if let last = entry.last, last.event == "delivered" {
            let at = last.time.map { " at \(Self.time($0))" } ?? ""
            return .init(
                .delivered,
                "the device acknowledged it\(at); it was not sent through the provider, so nothing reported whether "
                    + "it was shown",
                next: "the simulated device's events say what it showed (GET /events?apns-id=)")
        }
        return fromGateway(entry)
            ?? .init(.awaitingDevice, "APNs accepted it; no step since", waitingFor: "the device to connect")
    }

    /// The `reason` of the deliveries of a paused app, parked in the queue until it is resumed.
    package static let pausedReason = "AppPaused"

    /// Not sent yet: scheduled, waiting for a retry, or in the queue (rate limit, other work first).
    private static func waiting(_ trace: DeliveryTrace, now: Date) -> DeliveryVerdict {
        let at = Self.time(trace.notBefore)
        if trace.reason == APNSReachability.unreachableReason {
            return .init(
                .waitingForAPNs,
                "waiting: APNs could not be reached (no connection: DNS, TCP or TLS failed); the next try is at \(at). "
                    + "It waits without spending attempts until APNs answers or the notification expires",
                next: "nothing to do if APNs or the network is down; else check the provider's route to APNs "
                    + "(herald doctor --app, /healthz)",
                waitingFor: "APNs to be reachable (next try at \(at))")
        }
        if trace.reason == PreparedBatch.quietHoursReason {
            return .init(
                .quietHours,
                "waiting: it fell in the device's quiet hours (in its own time zone); it is sent when they end, at "
                    + "\(at), spending no attempt",
                next: "nothing to do; send what must go through at once as time-sensitive (interruption-level), or "
                    + "give the notification \"quietHours\": false",
                waitingFor: "the end of the device's quiet hours, \(at)")
        }
        if trace.reason == DeliveryEngine.cancelledReason {
            return .init(
                .cancelled,
                "never sent: its notification was cancelled while a worker held it; it waits to be marked cancelled",
                next: "nothing to do; create the notification again if it still matters")
        }
        if let reason = CredentialPause.apnsReason(parkedAs: trace.reason) {
            let meaning = APNSReason(rawValue: reason).meaning.map { ": \($0)" } ?? ""
            return .init(
                .waitingForCredentials,
                "waiting: APNs refused app \(trace.appID)'s credentials (\(reason)\(meaning)), so the app's sending "
                    + "paused; it is sent, spending no attempt, once the credentials change or the app is resumed",
                next: "check them: herald doctor --app \(trace.appID); then correct them (herald apps update "
                    + "\(trace.appID) --auth-key TEAM:KEY:FILE, or PATCH /v1/apps/\(trace.appID)), or resume: herald "
                    + "apps resume \(trace.appID)",
                waitingFor: "the app's credentials to change")
        }
        if trace.reason == Self.pausedReason {
            return .init(
                .paused,
                "waiting: app \(trace.appID)'s sending is paused; it is sent when the app is resumed, spending no "
                    + "attempt",
                next: "resume the app: herald apps resume \(trace.appID) (POST /v1/apps/\(trace.appID)/resume)",
                waitingFor: "the app to be resumed")
        }
        if trace.attempts > 0 {
            let answer = [trace.status.map(String.init), trace.reason].compactMap { $0 }.joined(separator: " ")
            return .init(
                .retrying,
                "APNs answered \(answer.isEmpty ? "nothing" : answer) to attempt \(trace.attempts); the next "
                    + "attempt is at \(at)",
                next: "nothing to do: the provider retries with backoff, at most 4 sends in all",
                waitingFor: "the next attempt at \(at)")
        }
        if trace.notBefore > now {
            return .init(.scheduled, "scheduled: it is sent at \(at)", waitingFor: "its send time, \(at)")
        }
        return .init(
            .queued, "in the queue since \(Self.time(trace.queuedAt)), not sent yet",
            next: "if it stays queued, check the app's rate limit (GET /v1/apps/{id}) and /metrics' queue depth",
            waitingFor: "a worker")
    }

    /// APNs accepted it: the device's reports say what followed, else the local APNs' log, else nothing yet.
    private static func accepted(_ trace: DeliveryTrace, gateway: GatewayLogEntry?) -> DeliveryVerdict {
        let outcomes = Set(trace.outcomes.compactMap(DeliveryOutcome.init(rawValue:)))
        if let reply = trace.reply {
            return .init(.replied, "shown, and the person replied \"\(reply.prefix(80))\"")
        }
        if let action = trace.action {
            return .init(.acted, "shown, and the person chose the action \(action)")
        }
        if trace.openedAt != nil { return .init(.opened, "shown, and the person tapped it") }
        if outcomes.contains(.activityThrottled) {
            return .init(
                .activityThrottled,
                "the Live Activity dropped it: the activity had used its budget of priority-10 pushes for the hour",
                next: "send routine updates with apns-priority 5 (they do not count), keep 10 for what the person "
                    + "must see now; NSSupportsLiveActivitiesFrequentUpdates raises the budget")
        }
        if outcomes.contains(.activityIgnored) {
            let why = Self.detail(of: .activityIgnored, in: trace).map { ": \($0)" } ?? ""
            return .init(
                .activityIgnored, "the Live Activity took nothing from it\(why)",
                next: "send a newer timestamp (UNIX seconds, later than the last update's) and a content-state of the "
                    + "activity's type, to an activity that has not ended")
        }
        if outcomes.contains(.activityUpdated) {
            return .init(.activityUpdated, "the Live Activity took it: its content changed on the device")
        }
        if trace.dismissedAt != nil { return .init(.dismissed, "shown, and the person dismissed it") }
        if let notShown = outcomes.first(where: \.isNotShown) { return Self.notShown(notShown, trace: trace) }
        if trace.displayedAt != nil { return Self.shown(outcomes, trace: trace) }
        if trace.deliveredAt != nil {
            return .init(
                .delivered, "it reached the app; the device has not said it was shown",
                next: "a device that reports only deliveries cannot say more", waitingFor: "a display report")
        }
        if let entry = gateway, let verdict = Self.fromGateway(entry, expiration: trace.expiration) { return verdict }
        if let retired = trace.tokenRetiredAt {
            let why =
                trace.tokenRetiredBecause == "replaced"
                ? "the app registered a new token for the device" : "APNs answered \(trace.tokenRetiredBecause ?? "")"
            return .init(
                .tokenGone,
                "APNs accepted it, and the provider retired its token at \(Self.time(retired)): \(why); the device "
                    + "has not reported it and may never",
                next: "nothing to do: later notifications go to the device's new token")
        }
        let accepted = trace.answeredAt.map { " at \(Self.time($0))" } ?? ""
        return .init(
            .awaitingDevice,
            "APNs accepted it\(accepted); the device has not reported it. An offline device gets it when it comes "
                + "back, unless it expires or a newer notification for the app replaces it",
            next: "with the local APNs, its log says where it is (herald log --apns-id \(trace.apnsID))",
            waitingFor: "the device's report")
    }

    private static func shown(_ outcomes: Set<DeliveryOutcome>, trace: DeliveryTrace) -> DeliveryVerdict {
        func why(_ outcome: DeliveryOutcome) -> String { Self.detail(of: outcome, in: trace).map { ": \($0)" } ?? "" }
        if outcomes.contains(.extensionFailed) {
            let why = why(.extensionFailed)
            return .init(
                .shownOriginal, "shown as the original content: the service extension failed\(why)",
                next: "fix the failing step (the device's log names it); the original text was shown meanwhile")
        }
        if outcomes.contains(.extensionTimeout) {
            let why = why(.extensionTimeout)
            return .init(
                .shownBestAttempt,
                "shown as the service extension's best attempt: it ran out of its 30 seconds\(why)",
                next: "make the extension finish sooner (a smaller attachment, a faster server)")
        }
        if outcomes.contains(.attachmentDropped) {
            return .init(
                .shownWithoutAttachment, "shown without its attachment\(why(.attachmentDropped))",
                next: "serve it from an address the device may reach, as a supported type within its size limit "
                    + "(image 10 MB, audio 5 MB, movie 50 MB)")
        }
        return .init(.shown, "shown to the person; no response yet")
    }

    private static func notShown(_ outcome: DeliveryOutcome, trace: DeliveryTrace) -> DeliveryVerdict {
        switch outcome {
        case .background:
            return .init(.background, "a background notification: the app was woken, nothing was to be shown")
        case .notAuthorized:
            return .init(
                .notShown, "not shown: the person has not allowed the app's notifications",
                next: "the app asks again only through Settings: explain why in the app and link to its settings")
        case .alertsOff:
            return .init(
                .notShown, "not shown: the app may not show alerts (only badges or sounds)",
                next: "ask for .alert in requestAuthorization, or the person turns alerts on in Settings")
        case .foregroundNotPresented:
            return .init(
                .notShown,
                "not shown: the app was in the foreground and its delegate chose no banner or list "
                    + "(userNotificationCenter(_:willPresent:))",
                next: "return [.banner, .list, .sound] from willPresent for notifications the app wants shown")
        case .extensionTimeout, .extensionFailed, .attachmentDropped, .activityUpdated, .activityIgnored,
            .activityThrottled:
            return shown([outcome], trace: trace)
        }
    }

    /// The device's words for one outcome (its `code: text` line).
    static func detail(of outcome: DeliveryOutcome, in trace: DeliveryTrace) -> String? {
        let prefix = outcome.rawValue + ": "
        return trace.outcomeDetail?.split(separator: "\n").first { $0.hasPrefix(prefix) }.map {
            String($0.dropFirst(prefix.count))
        }
    }

    /// What the local APNs' log says of a push no device reported.
    private static func fromGateway(_ entry: GatewayLogEntry, expiration: Int? = nil) -> DeliveryVerdict? {
        guard let last = entry.last else { return nil }
        let at = last.time.map { " at \(Self.time($0))" } ?? ""
        switch last.event {
        case "stored":
            let until =
                expiration.flatMap { $0 > 0 ? Self.time(Date(timeIntervalSince1970: TimeInterval($0))) : nil }
                .map { " if that is before its apns-expiration, \($0)" } ?? ""
            return .init(
                .storedOffline, "stored by APNs\(at): the device is offline; it gets it when it connects\(until)",
                next: "nothing to do; a newer notification for the app would replace it while the device is offline",
                waitingFor: "the device to come online")
        case "replaced":
            let by = last.replacedBy.map { " (\($0))" } ?? ""
            if last.detail?.contains("collapse ID") == true {
                return .init(
                    .replaced, "replaced\(at) by a newer notification with the same collapse ID\(by)",
                    next: "as intended with apns-collapse-id; use another collapse ID to keep both")
            }
            return .init(
                .coalesced,
                "dropped\(at): the device was offline, and APNs keeps only the newest notification per app\(by)",
                next: "put what must not be lost in every notification, or fetch it when the app opens")
        case "expired":
            return .init(
                .expired, "expired\(at) before the device came back: \(last.detail ?? "its apns-expiration passed")",
                next: "give a later apns-expiration to reach devices that are offline longer")
        case "discarded":
            return .init(
                .discarded, "not kept\(at): \(last.detail ?? "the device was offline")",
                next: "apns-expiration 0 means now or never: give a later one to reach offline devices")
        case "forwarded", "delivered":
            return .init(
                .awaitingDevice, "APNs handed it to the device\(at); the device has not reported what it did",
                next: "check the device's log (GET /events?apns-id= on a simulated device)",
                waitingFor: "the device's report")
        default:
            return nil
        }
    }

    static func time(_ date: Date) -> String {
        date.iso8601Milliseconds
    }
}
