package import Foundation

/// What the delivery engine needs of a store, and all it may call: the queue's leases and their results, and the
/// app, notification and device keys a leased delivery is sent with. Both stores implement it (as part of
/// ``ProviderStore``); the engine's tests implement it in memory.
package protocol DeliveryQueue: Sendable {
    // What a leased delivery is sent with
    /// The key deliveries' `apns-id`s are made with (``DeliveryMessageID``), derived from the master key.
    var messageKey: MessageKey { get }

    /// The app with its sealed credentials; `nil` when it was deleted.
    func app(id: String) async throws(ProviderError) -> StoredApp?
    /// The notification a delivery sends; `nil` when it was deleted.
    func notification(id: String) async throws(ProviderError) -> StoredNotification?
    /// The end-to-end public keys (base64) of those of `tokens` that registered one, by token.
    func publicKeys(appID: String, tokens: [String]) async throws(ProviderError) -> [String: String]
    /// The settings a notification is written by for each of the app's devices among `tokens` (those that have any:
    /// a locale, a time zone, attributes), by token.
    func deviceSettings(appID: String, tokens: [String]) async throws(ProviderError) -> [String: DeviceSettings]
    /// The time zones of the app's devices among `tokens` (those that registered one), by token: a daily
    /// notification's send times, quiet hours.
    func timeZones(appID: String, tokens: [String]) async throws(ProviderError) -> [String: String]

    // Frequency caps (``FrequencyCap``)
    /// The notifications of `category` that went to each of `subjects` since `since`, by subject (one that got none
    /// is left out).
    func capSends(appID: String, category: String, subjects: [String], since: Date)
        async throws(ProviderError) -> [String: Set<String>]
    /// Writes that notification `notificationID` of `category` went to each of `subjects` at `at` (once each: again
    /// is nothing).
    func recordCapSends(appID: String, category: String, notificationID: String, subjects: [String], at: Date)
        async throws(ProviderError)

    // Leases and results
    /// Leases up to `limit` queued deliveries due at `now` to `owner` until `now + leaseFor`, counting an attempt
    /// for each, oldest due first.
    func lease(owner: String, limit: Int, now: Date, leaseFor: TimeInterval) async throws(ProviderError)
        -> [LeasedDelivery]
    /// Writes APNs' answers to `owner`'s leased deliveries (others' are skipped: their lease ran out) and moves
    /// their notifications' counters.
    func record(_ results: [DeliveryResult], owner: String) async throws(ProviderError)
    /// Puts back in the queue every delivery whose lease ended before `now`; the number.
    func reclaimExpiredLeases(now: Date) async throws(ProviderError) -> Int
    /// Puts back, without spending their attempt, every lease `owner` holds (it stops); the number.
    func releaseLeases(owner: String) async throws(ProviderError) -> Int
    /// Puts back what one `lease(owner:limit:now:leaseFor:)` call took, named by the end it gave those leases
    /// (`now + leaseFor`, unique per call), without spending their attempt: for a call whose answer was lost (the
    /// connection died after the database committed it), so they are not held until the lease runs out. The number
    /// put back.
    func releaseLease(owner: String, until: Date) async throws(ProviderError) -> Int
    /// Moves the end of every lease `owner` holds to `until` (while it retries writing APNs' answers, so no other
    /// worker takes them back); the number of leases extended.
    func extendLeases(owner: String, until: Date) async throws(ProviderError) -> Int
    /// Says `owner` is alive, and requeues the leases of owners that have not said so for `staleAfter` seconds (a
    /// process that died, on a store several processes share); the number requeued. One process per SQLite file
    /// reclaims everything at start instead, so there it does nothing.
    func heartbeat(owner: String, staleAfter: TimeInterval) async throws(ProviderError) -> Int
    /// Moves every queued delivery of `appID` that carries `reason` and waits past `now` to `now`: the deliveries
    /// parked while APNs could not be reached, sent at once when it can again. The number moved.
    func wakeWaiting(appID: String, reason: String, now: Date) async throws(ProviderError) -> Int
    // Several providers on one database
    /// Tells every provider on the database that work is due now, so their idle workers look at once instead of at
    /// their next poll; nothing on a store one process uses. A failure is only a later look: it is not reported.
    func announceWork() async
    /// Every provider's announcements of work (this one's included) until the task is cancelled; nothing, on a store
    /// one process uses.
    func workAnnouncements() -> AsyncStream<Void>
    /// How many providers said they are alive within `staleAfter` (1 on a store one process uses).
    func liveProviders(staleAfter: TimeInterval) async throws(ProviderError) -> Int

    /// Moves every queued delivery of `appID` to `until` with `reason` (an app paused). The number moved.
    func park(appID: String, reason: String, until: Date) async throws(ProviderError) -> Int
    /// Pauses app `appID` at `at` because APNs refused its credentials or topic with `reason`, unless it is paused
    /// already; `true` when this call paused it (so one process says so once).
    func pauseForCredentials(appID: String, reason: String, at: Date) async throws(ProviderError) -> Bool

    // A cancelled notification's withheld deliveries
    /// Cancels notification `id`: marks it cancelled (a daily one is no longer scheduled) and cancels its queued
    /// deliveries (counted `cancelled`); deliveries in flight finish. The number cancelled.
    func cancelNotification(id: String, at: Date) async throws(ProviderError) -> Int
}
