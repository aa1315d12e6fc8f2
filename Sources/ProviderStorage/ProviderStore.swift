package import Foundation

/// Where the provider keeps apps, devices, notifications and the delivery queue. SQLite (``SQLiteStore``) is the
/// embedded default; PostgreSQL (``PostgresStore``) lets several provider processes share one queue.
package protocol ProviderStore: DeliveryQueue, WebhookOutbox, ConsoleSessionStore, ConsoleMetricStore, AuditLog {
    /// Closes the store's connections; nothing may use it afterwards.
    func close() async
    /// Where the store reports how long its work takes (``StoreObservation``).
    var observation: StoreObservation { get }
    /// How many batches of receipts are worth writing at once: 1 where writes take turns (SQLite), more where
    /// transactions run side by side (PostgreSQL: two, from a pool of 8 or more; more batches at once only wait
    /// for each other's locks on the same notifications' counters).
    var receiptWriters: Int { get }

    // What several providers on one database share
    /// The value stored under `name`, storing `proposed` first when there is none: every provider on one database
    /// gets the first one stored.
    func sharedSetting(_ name: String, proposing proposed: Data) async throws(ProviderError) -> Data
    /// Whether provider `owner` exports the store's shared gauges (the queue's depth): the live provider whose owner
    /// sorts first, so that a `sum()` over every provider counts the queue once; always, on a store one process uses.
    func exportsSharedGauges(owner: String, staleAfter: TimeInterval) async throws(ProviderError) -> Bool

    // Apps and keys
    func insertApp(_ app: StoredApp, apiKeyID: String, apiKeyHash: String) async throws(ProviderError)
    func updateApp(_ app: StoredApp) async throws(ProviderError)
    func apps() async throws(ProviderError) -> [StoredApp]
    func app(publishableKey: String) async throws(ProviderError) -> StoredApp?
    /// The app of the API key whose SHA-256 is `apiKeyHash`, with the key's record (its ID and scopes).
    func app(apiKeyHash: String) async throws(ProviderError) -> (app: StoredApp, key: APIKeyRecord)?
    /// Keeps a new API key of the app by its hash; `scopes` `nil` for every scope.
    func insertAPIKey(appID: String, id: String, hash: String, scopes: [String]?, at: Date) async throws(ProviderError)
    func deleteAPIKey(appID: String, id: String) async throws(ProviderError) -> Bool
    /// The app's API keys, oldest first.
    func apiKeys(appID: String) async throws(ProviderError) -> [APIKeyRecord]
    func setCategories(appID: String, json: Data, at: Date) async throws(ProviderError) -> Int

    // Devices
    func upsertDevice(appID: String, _ input: DeviceInput, at: Date) async throws(ProviderError) -> (
        DeviceRecord, created: Bool
    )
    func upsertDevices(appID: String, _ inputs: [DeviceInput], at: Date) async throws(ProviderError) -> Int
    func device(appID: String, token: String) async throws(ProviderError) -> DeviceRecord?
    func devices(_ query: DeviceQuery) async throws(ProviderError) -> [DeviceRecord]
    func deleteDevice(appID: String, token: String) async throws(ProviderError) -> Bool
    /// Marks a device inactive with a reason (its app registered a new token in its place).
    func deactivateDevice(appID: String, token: String, reason: String, at: Date) async throws(ProviderError) -> Bool

    // Notifications and the queue
    func insertNotification(_ notification: StoredNotification, target: NotificationTarget, requireKey: Bool)
        async throws(ProviderError) -> Int
    /// The app's notifications, newest first; only those created before `before` when it is given (the next page).
    func notifications(appID: String, before: Date?, limit: Int) async throws(ProviderError) -> [StoredNotification]
    /// One delivery with the device's reports; `nil` when there is none with that number.
    func delivery(id: Int64) async throws(ProviderError) -> DeliveryTrace?
    /// A notification's deliveries in the order they were made (without reports), from number `after` on.
    func deliveries(notificationID: String, after: Int64, limit: Int) async throws(ProviderError) -> [DeliveryTrace]
    /// The statistics of each of `notificationIDs` (a page of History at once); an unknown ID has none.
    func stats(notificationIDs: [String]) async throws(ProviderError) -> [String: NotificationReport.Stats]
    /// The answers to a notification (`opened`, `dismissed`, `action`) after the cursor `after`, oldest first.
    func responses(notificationID: String, after: Int64, limit: Int) async throws(ProviderError)
        -> [NotificationResponse]
    func dailyNotifications() async throws(ProviderError) -> [StoredNotification]
    /// How many of the active devices `target` selects registered each locale (`""` for none).
    func targetLocales(appID: String, target: NotificationTarget, requireKey: Bool) async throws(ProviderError)
        -> [String: Int]
    /// Keeps how many of a notification's deliveries were for each language (`nil`: it has one text).
    func setLanguageCounts(notificationID: String, counts: [String: Int]?) async throws(ProviderError)
    func targetTokens(appID: String, target: NotificationTarget, requireKey: Bool) async throws(ProviderError)
        -> [String]
    func insertOccurrences(notificationID: String, appID: String, occurrence: String, times: [(String, Date)])
        async throws(ProviderError) -> Int
    /// The deliveries waiting in the queue: exact up to `exactUpTo`; above it a store may answer an estimate (more than
    /// `exactUpTo`), because counting a queue of millions reads every entry of it, and `/metrics` and `/healthz` ask
    /// for it every few seconds.
    func queueDepth(exactUpTo: Int) async throws(ProviderError) -> Int
    /// What the queue's gauges say beside its depth: the deliveries leased now, and when the oldest delivery that is
    /// due at `now` and not leased became due (`nil` when none is).
    func queueGauges(now: Date) async throws(ProviderError) -> (leased: Int, oldestDue: Date?)

    // A notification's and an app's lifecycle
    /// Writes a changed notification that has sent nothing: its payload, headers and times. A one-off's queued
    /// deliveries move to its new `sendAt`; a daily one's queued occurrences not yet due are dropped when
    /// `dropOccurrences` (the scheduler queues them again at the new time). `false`, changing nothing, when a
    /// delivery of a one-off was leased or answered meanwhile.
    func updateUnsentNotification(_ notification: StoredNotification, dropOccurrences: Bool, now: Date)
        async throws(ProviderError) -> Bool
    /// Puts back in the queue, due `now` and with no attempt spent, the deliveries of `notificationID` that were
    /// rejected with one of `reasons` and answered within `answered`. The number.
    func resend(notificationID: String, reasons: [String], answered: ClosedRange<Date>, now: Date)
        async throws(ProviderError) -> Int
    /// Marks the app paused at `at` (or resumed, `nil`); `false` when there is no such app.
    func setPaused(appID: String, at: Date?) async throws(ProviderError) -> Bool
    /// Deletes the app with everything of it: keys, devices, tokens, channels, notifications, deliveries, reports
    /// (the deliveries in batches, each its own transaction). `nil` when there is no such app.
    func deleteApp(id: String) async throws(ProviderError) -> AppDeletion?

    // Retention (``RetentionDays``): rows deleted in small batches, the notifications' counters kept
    /// Up to `limit` of the app's notifications created before `createdBefore` whose deliveries are not pruned yet,
    /// oldest first: one-off ones, and daily ones cancelled before then (a daily one that runs is pruned by day).
    func unprunedNotifications(appID: String, createdBefore: Date, limit: Int) async throws(ProviderError) -> [String]
    /// Deletes up to `limit` of a notification's finished deliveries (accepted, rejected, cancelled), of a daily one
    /// only those of occurrences (local days, `YYYY-MM-DD`) before `occurrenceBefore`, with every report of them, and
    /// notes the delivery numbers pruned and when; a one-off notification with no delivery left is marked pruned.
    /// The number deleted.
    func pruneDeliveries(notificationID: String, occurrenceBefore: String?, limit: Int, at: Date)
        async throws(ProviderError) -> Int
    // Users' attributes
    /// Replaces the attributes of the app's user `userID` (an empty map removes them) at `at`.
    func setUserAttributes(appID: String, userID: String, attributes: [String: String], at: Date)
        async throws(ProviderError)
    /// The attributes of the app's user `userID` (none: an empty map).
    func userAttributes(appID: String, userID: String) async throws(ProviderError) -> UserAttributes

    /// Deletes up to `limit` entries of the frequency caps' send log made before `before` (older than any cap's
    /// window). The number deleted.
    func pruneCapLog(before: Date, limit: Int) async throws(ProviderError) -> Int
    /// Deletes up to `limit` of the app's device reports of `events` dated before `before`. The number deleted.
    func pruneReports(appID: String, events: [String], before: Date, limit: Int) async throws(ProviderError) -> Int
    /// Deletes up to `limit` of the app's pruned notifications created (and, a daily one, cancelled) before
    /// `createdBefore`, with their counters. The number deleted.
    func deleteNotifications(appID: String, createdBefore: Date, limit: Int) async throws(ProviderError) -> Int
    /// The notifications whose pruned range of delivery numbers covers `deliveryID`, with when they were pruned (the
    /// caller checks which one the `apns-id` was made for).
    func prunedNotifications(covering deliveryID: Int64) async throws(ProviderError) -> [PrunedNotification]

    // Live Activities
    /// Registers an activity token, or brings its registration up to date; whether it was new.
    func upsertActivityToken(appID: String, _ input: ActivityTokenInput, at: Date) async throws(ProviderError) -> (
        ActivityTokenRecord, created: Bool
    )
    /// The app's activity tokens that match the query, in token order, after the cursor.
    func activityTokens(_ query: ActivityTokenQuery, now: Date) async throws(ProviderError) -> [ActivityTokenRecord]
    func deleteActivityToken(appID: String, token: String) async throws(ProviderError) -> Bool
    func insertChannel(appID: String, _ channel: ChannelRecord) async throws(ProviderError)
    /// The app's channels, oldest first.
    func channels(appID: String) async throws(ProviderError) -> [ChannelRecord]
    func deleteChannel(appID: String, id: String) async throws(ProviderError) -> Bool

    // Feedback
    /// Records what devices report about deliveries, in one transaction, each receipt once its claim holds (its
    /// apns-id is the one this provider made for that delivery of that app; with a token, the delivery reached that
    /// token), keeping the reported time in its window (``FeedbackEvent/keepInWindow(queuedAt:now:)``). Each receipt's
    /// answer, in order: its delivery's context, `nil` when the claim does not hold, or why it was refused
    /// (``ReceiptBatch``); a thrown error is the whole batch's (nothing of it was recorded).
    func recordFeedback(_ receipts: [FeedbackReceipt]) async throws(ProviderError)
        -> [Result<DeliveryContext?, ProviderError>]
}

extension ProviderStore {
    /// Records one receipt of app `appID` (``recordFeedback(_:)``): its delivery's context, `nil` when `claim` does
    /// not hold.
    package func recordFeedback(appID: String, claim: FeedbackClaim, _ event: FeedbackEvent)
        async throws(ProviderError) -> DeliveryContext?
    {
        try await recordFeedback([FeedbackReceipt(appID: appID, claim: claim, event: event)])[0].get()
    }

    /// The deliveries waiting in the queue, exact up to ``exactQueueDepth``.
    package func queueDepth() async throws(ProviderError) -> Int {
        try await queueDepth(exactUpTo: exactQueueDepth)
    }
}

/// Up to how many queued deliveries ``ProviderStore/queueDepth()`` counts them; PostgreSQL estimates above it.
package let exactQueueDepth = 10_000
