import APNSCore
import Foundation
import HeraldSupport
import HeraldTime
import Logging
import Prometheus
import ProviderStorage
import Tracing

/// What the API, the console and `herald why` do with notifications: create one (checked, stored, its deliveries
/// queued), report them, and after creation cancel, change or resend them. It holds what those need and nothing
/// else: the store, the clock, the engine (to wake its workers, stop a cancelled notification's sends, let a probe go
/// out), the daily scheduler and the metrics.
package struct NotificationOperations: Sendable {
    let store: any ProviderStore
    let clock: any WallClock
    let engine: DeliveryEngine
    let scheduler: DailyScheduler
    let metrics: ProviderMetrics
    /// Notified at every change the provider records.
    let changes: WorkSignal
    let logger: Logger
    /// Where a notification's creation and fan-out are traced; `nil`: traces are off.
    let tracer: HeraldTracer?

    /// The provider's time.
    func now() -> Date { clock.currentDate }

    /// Checks, stores and queues a notification; one delivery per targeted device.
    func create(_ input: NotificationInput, for app: StoredApp) async throws(ProviderError)
        -> NotificationReport
    {
        let now = now()
        let plan = try NotificationPlan(input, bundleID: app.app.bundleID, now: now)
        if case .channel(let id) = plan.target {
            try await checkBroadcast(on: id, expiration: plan.expiration, app: app)
        }
        var stored = StoredNotification(
            id: UUID().uuidString, appID: app.app.id, target: plan.target.stored, payload: plan.payload,
            pushType: plan.pushType, priority: plan.priority, expiration: plan.expiration,
            collapseID: plan.collapseID, encryptedKey: plan.encrypted?.key, encrypted: plan.encrypted?.plaintext,
            sendAt: plan.sendAt, dailyAt: plan.dailyAt?.text, targeted: 0, createdAt: now,
            localized: plan.localized?.stored, quietHours: plan.quietHours, variables: plan.variables,
            capCategory: plan.capCategory)
        // The fan-out, in the trace of the request that creates it (or a trace of its own); its sends continue it.
        let fanOut = tracer?.startSpan("herald fan-out", parent: InstrumentationContext.current ?? .topLevel)
        if let fanOut {
            // Kept only for a trace that is recorded: the sends of one sampled out cost nothing.
            if fanOut.isRecording { stored.traceContext = tracer?.storedContext(of: fanOut.context) }
            fanOut.attributes["herald.notification.id"] = stored.id
            fanOut.attributes["herald.app.id"] = app.app.id
        }
        do {
            let targeted = try await store.insertNotification(
                stored, target: plan.target, requireKey: plan.encrypted != nil)
            fanOut?.attributes["herald.deliveries"] = targeted
            fanOut?.end()
            if let localized = plan.localized, plan.dailyAt == nil {
                // Queued already: counts that cannot be written are said in the log, not as the request's failure.
                do {
                    try await countLanguages(
                        stored.id, tags: localized.payloads.map(\.tag), target: plan.target, targeted: targeted,
                        appID: app.app.id)
                } catch {
                    logger.warning(
                        "a notification's deliveries could not be counted by language",
                        metadata: ["notification": "\(stored.id)", "why": "\(error)"])
                }
            }
        } catch {
            fanOut?.recordError(error)
            fanOut?.end()
            throw error
        }
        metrics.notificationsCreated.increment()
        if plan.dailyAt != nil {
            await scheduler.scheduleDue(now: now, only: stored.id)
        }
        engine.notify()
        // Safety: inserted just above.
        var created = try await report(try await store.notification(id: stored.id)!)
        if plan.priority != 5, let warning = try await budgetWarning(plan.target, appID: app.app.id, now: now) {
            created.warning = warning
        } else if created.stats.targeted == 0, plan.target.isLiveActivity {
            created.warning =
                "no activity token of this app matches \(created.target), so nothing will be sent; "
                + "see GET /v1/activities/tokens?type=...&user=... for what activities registered"
        } else if created.stats.targeted == 0, plan.target.widgetPushType != nil {
            created.warning =
                "no widget token of this app matches \(created.target), so nothing will be sent; "
                + "see GET /v1/widgets/tokens?user=...&control=... for what widgets and controls registered"
        } else if created.stats.targeted == 0, plan.dailyAt == nil {
            let key = plan.encrypted == nil ? "" : " with an end-to-end public key (encrypted content needs one)"
            created.warning =
                "no active device of this app matches \(created.target)\(key), so nothing will be sent; "
                + "see GET /v1/devices?user=...&tag=... for who is registered"
        } else if let pausedAt = app.app.pausedAt {
            let id = app.app.id
            let until =
                app.app.pauseReason.map {
                    "APNs refused its credentials (\($0)): they wait until the credentials are corrected (herald "
                        + "doctor --app \(id), then PATCH /v1/apps/\(id))"
                } ?? "they wait until it is resumed (herald apps resume \(id), POST /v1/apps/\(id)/resume)"
            created.warning =
                "app \(id) is paused since \(pausedAt.formatted(.iso8601)), so its deliveries spend no attempt and "
                + "nothing is sent: \(until)"
        }
        return created
    }

    /// Priority-10 pushes an activity may get in an hour before the provider warns. iOS budgets them and throttles
    /// past the budget, whose size Apple does not publish; this is Herald's threshold, one every six
    /// minutes.
    static let priority10WarningPerHour = 10

    /// A warning when a targeted activity had more than ``priority10WarningPerHour`` priority-10 pushes this hour.
    private func budgetWarning(_ target: NotificationTarget, appID: String, now: Date) async throws(ProviderError)
        -> String?
    {
        var query = ActivityTokenQuery(appID: appID, kind: "update", limit: 1000)
        switch target {
        case .activity(let id): query.activityID = id
        case .activities(let type, let user, false):
            query.attributesType = type
            query.userID = user
        default: return nil
        }
        let used = try await store.activityTokens(query, now: now).map(\.priority10ThisHour).max() ?? 0
        guard used > Self.priority10WarningPerHour else { return nil }
        return "an activity of \(target.summary) has had \(used) priority-10 pushes this hour: iOS counts priority 10 "
            + "against the activity's budget and throttles it when spent; send routine updates with priority 5"
    }

    /// A broadcast goes to one of the app's channels, with an expiration its storage policy takes.
    private func checkBroadcast(on id: String, expiration: Int?, app: StoredApp) async throws(ProviderError) {
        guard let channel = try await store.channels(appID: app.app.id).first(where: { $0.id == id }) else {
            throw .field(
                "target.channel",
                "\(id) is not one of app \(app.app.id)'s channels: make one with POST /v1/channels (GET /v1/channels "
                    + "lists them)")
        }
        if channel.storagePolicy == 0, let expiration, expiration != 0 {
            throw .field(
                "expiration",
                "channel \(id) stores no message (storage policy 0), so APNs refuses a nonzero expiration "
                    + "(BadExpirationDate): give 0 or leave it out")
        }
    }

    /// Counts a notification's deliveries by the language each device reads (``LanguageTag/best(for:among:)``):
    /// from the locales its target's devices registered; a device with none, or with a language not given, and a
    /// token no device registered count as `default`.
    func countLanguages(_ id: String, tags given: [String], target: NotificationTarget, targeted: Int, appID: String)
        async throws(ProviderError)
    {
        let tags = Dictionary(given.map { ($0.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        var counts = Dictionary(given.map { ($0, 0) }, uniquingKeysWith: { a, _ in a })
        var matched = 0
        for (locale, count) in try await store.targetLocales(appID: appID, target: target, requireKey: false) {
            guard let best = LanguageTag.best(for: locale, among: Set(tags.keys)), let tag = tags[best] else {
                continue
            }
            counts[tag, default: 0] += count
            matched += count
        }
        counts["default"] = max(0, targeted - matched)
        try await store.setLanguageCounts(notificationID: id, counts: counts)
    }
}
