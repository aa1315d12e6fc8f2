import APNSClient
import APNSCore
import Crypto
import Foundation
import HeraldSupport
import HeraldTime
import Logging
import NIOCore
import ProviderStorage
import Synchronization

/// The workers: lease batches of deliveries from the queue, send each through the app's sender (its `APNSPushClient`),
/// and record every result, retrying with backoff what APNs says may succeed later.
///
/// It knows the store and APNs only through ``DeliveryQueue`` and ``DeliverySenders``, and time only through its
/// ``Settings/clock``: its tests run it against in-memory fakes and a manual clock.
///
/// Results are written while a batch is still in flight (every ``flushInterval``), so a killed process leaves at most
/// the answers of the last moments unrecorded; those deliveries are leased again when their lease runs out and resent
/// with the same `apns-id`, which devices use to drop a repeat.
final class DeliveryEngine: Sendable {
    struct Settings: Sendable {
        /// Concurrent lease-and-send loops.
        var workers = 4
        /// Deliveries leased at a time.
        var batchSize = 5000
        /// How long a lease lasts before another worker may take the delivery.
        var leaseDuration: TimeInterval = 60
        /// How often to look for scheduled or retried deliveries when nothing wakes the workers.
        var pollInterval: Duration = .milliseconds(250)
        /// How often results are written while a batch is in flight.
        var flushInterval: Duration = .milliseconds(50)
        /// How often the engine tells a shared store it is alive.
        var heartbeatInterval: Duration = .seconds(1)
        /// How long an engine may be silent before its leases are taken back.
        var staleAfter: TimeInterval = 5
        /// Sends of one delivery in all (leases, across restarts) before one APNs keeps refusing with a temporary
        /// reason is given up; the client sends each lease once (`retriesAnswers` off), so this is the only count.
        var maximumAttempts = 4
        /// The time leases, retries and results are dated by, and every wait of the workers (``PushProviderService/Configuration/clock``).
        var clock: any WallClock = SystemWallClock()
    }

    let owner = "worker-" + UUID().uuidString.prefix(8)
    let store: any DeliveryQueue
    let senders: any DeliverySenders
    let settings: Settings
    let limiter = RateLimiter()
    let serverTrouble = ServerTroubleBackoff()
    /// Which apps cannot reach APNs now; their sends pause while one probe tries again.
    let reachability = APNSReachability()
    let answers: AnswerPolicy
    let logger: Logger
    let failures: FailureReporter
    /// Where the engine counts outages and lease takeovers (the reporter's).
    var metrics: ProviderMetrics { failures.metrics }
    let signal: WorkSignal
    private let lastLeaseTime = Mutex(Date.distantPast)
    /// Notifications cancelled while this engine may hold leases of them: what it has not sent of them is not sent.
    let cancelled: CancelledNotifications
    /// The app revisions (``PreparedBatch/appRevision``) APNs answered without refusing their credentials: until then
    /// an app's chunks are of one notification, so a credentials mistake is told by one answer, not a broadcast's.
    let confirmedCredentials = Mutex<Set<String>>([])
    /// Apps paused through this provider, and the reason their deliveries wait with: a batch of theirs stops before
    /// its next chunk.
    let pausedApps = Mutex<[String: String]>([:])
    /// The provider's record of changes: notified when new work arrives, when deliveries are leased, after each
    /// batch of APNs' answers is recorded, and when a dead provider's leases are requeued.
    let changes: WorkSignal

    /// Where the sends of traced notifications are traced; `nil`: traces are off.
    let tracer: HeraldTracer?

    init(
        queue: any DeliveryQueue, senders: any DeliverySenders, settings: Settings, failures: FailureReporter,
        changes: WorkSignal, tracer: HeraldTracer? = nil
    ) {
        self.tracer = tracer
        store = queue
        self.changes = changes
        let clock = settings.clock
        signal = WorkSignal(sleep: { try await clock.sleep(for: $0) })
        self.senders = senders
        self.settings = settings
        self.failures = failures
        logger = failures.logger
        answers = AnswerPolicy(maximumAttempts: settings.maximumAttempts, clock: clock)
        cancelled = CancelledNotifications(keep: settings.leaseDuration * 2)
    }

    /// Stops sending what this engine holds of a cancelled notification: its leased deliveries not written to APNs
    /// yet go back to the queue without spending an attempt, and are cancelled there after the batch.
    func stopSending(notificationID: String) {
        cancelled.add(notificationID, now: settings.clock.currentDate)
    }

    /// Tells idle workers there is new work now, here and, through the store, in every provider on the database.
    func notify() {
        signal.notify()
        changes.notify()
        let store = self.store
        Task { await store.announceWork() }
    }

    /// How many providers lease from the store (read every heartbeat).
    let liveProviders = Atomic<Int>(1)
    /// Deliveries this engine's workers hold (leased, not yet recorded) or are about to lease.
    private let held = Mutex(0)

    /// Reserves what the next lease may take: a batch, within this provider's share of what every worker may hold
    /// (``Settings/workers`` batches, divided among the live providers), so that a broadcast is spread over every
    /// provider on the database rather than taken whole by the one whose workers looked first. `0` while the share is
    /// held; what the lease does not use goes back with ``release(_:)``.
    func reserveLease() -> Int {
        let share = settings.batchSize * settings.workers / max(1, liveProviders.load(ordering: .relaxed))
        let least = min(settings.batchSize, 500)
        return held.withLock { held in
            let size = min(settings.batchSize, share - held)
            guard size >= least || held == 0 else { return 0 }
            held += max(size, least)
            return max(size, least)
        }
    }

    /// Gives back `count` reserved deliveries (leased and recorded, or not leased at all).
    func release(_ count: Int) {
        held.withLock { $0 = max(0, $0 - count) }
    }

    /// Runs the workers until the task is cancelled, then releases any lease not sent yet.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.watchLeases() }
            group.addTask { await self.beat() }
            group.addTask { await self.listen() }
            for _ in 0..<settings.workers {
                group.addTask { await self.workLoop() }
            }
            await group.next()
            group.cancelAll()
        }
        let (store, owner) = (self.store, self.owner)
        _ = try? await Task { try await store.releaseLeases(owner: owner) }.value
    }

    private func workLoop() async {
        // Leases whose call failed: the database may have committed them before the connection died.
        var unanswered: [Date] = []
        while !Task.isCancelled {
            do {
                // A lease that ran out needs no putting back: the lease watcher requeues it.
                unanswered.removeAll { $0 < settings.clock.currentDate }
                while let until = unanswered.first {
                    let count = try await store.releaseLease(owner: owner, until: until)
                    unanswered.removeFirst()
                    if count > 0 {
                        logger.notice(
                            "put back deliveries leased by a call whose answer was lost",
                            metadata: ["count": "\(count)"])
                    }
                }
                // Read before leasing: work that arrives after an empty lease ends the wait below at once.
                let seen = signal.count
                let size = reserveLease()
                guard size > 0 else {
                    // This provider holds its share: another worker's batch ends first.
                    await signal.wait(after: seen, upTo: settings.pollInterval)
                    continue
                }
                let now = leaseTime()
                let leased: [LeasedDelivery]
                do {
                    leased = try await store.lease(
                        owner: owner, limit: size, now: now, leaseFor: settings.leaseDuration)
                } catch {
                    release(size)
                    unanswered.append(now.addingTimeInterval(settings.leaseDuration))
                    throw error
                }
                release(size - leased.count)
                if leased.isEmpty {
                    await signal.wait(after: seen, upTo: settings.pollInterval)
                    continue
                }
                // Deliveries in flight are part of what a notification's report shows.
                changes.notify()
                await send(leased)
                release(leased.count)
                signal.notify()
            } catch {
                failures.report(.lease, "cannot lease deliveries; trying again in a second", error: error)
                try? await settings.clock.sleep(for: .seconds(1))
            }
        }
    }

    /// The time a lease call is made at: the engine's clock, but always later than the previous call's, so the end
    /// each call gives its leases names that call alone (``ProviderStore/releaseLease(owner:until:)``).
    private func leaseTime() -> Date {
        lastLeaseTime.withLock { last in
            let now = max(settings.clock.currentDate, last.addingTimeInterval(0.000_01))
            last = now
            return now
        }
    }

    /// The `reason` of a leased delivery withheld because its notification was cancelled, until it is cancelled in
    /// the queue after its batch.
    static let cancelledReason = "Cancelled"

    /// Where a paused app's deliveries wait in the queue: far enough never to come due; resuming the app moves them
    /// to now.
    static let pausedUntil = Date(timeIntervalSince1970: 32_503_680_000)  // 3000-01-01

    /// How long a batch the database failed to prepare waits before it is leased again (no attempt spent).
    static let storageWait: TimeInterval = 5

    /// Sends one leased batch and records its results.
    private func send(_ leased: [LeasedDelivery]) async {
        let buffer = ResultBuffer()
        // The leases were taken just before this call; a little is kept back for the write itself.
        let leasedUntil = settings.clock.currentDate.addingTimeInterval(settings.leaseDuration * 0.9)
        let flusher = Task {
            while (try? await settings.clock.sleep(for: settings.flushInterval)) != nil {
                await record(buffer.take(), leasedUntil: leasedUntil)
            }
        }
        // A batch of one app (a broadcast's) is sent as leased, without copying it apart.
        let oneApp = leased.first.flatMap { first in leased.allSatisfy { $0.appID == first.appID } ? first.appID : nil }
        let byApp = oneApp.map { [$0: leased] } ?? Dictionary(grouping: leased, by: \.appID)
        let withheld = WithheldDeliveries()
        await withTaskGroup(of: Void.self) { group in
            for (appID, deliveries) in byApp {
                group.addTask { await self.send(deliveries, appID: appID, into: buffer, withheld: withheld) }
            }
        }
        flusher.cancel()
        await flusher.value
        await record(buffer.take(), leasedUntil: leasedUntil)
        await wakeResumed(withheld.apps)
        // What was withheld of cancelled notifications is back in the queue: cancelled there now.
        for notificationID in withheld.notifications {
            do {
                let cancelled = try await store.cancelNotification(id: notificationID, at: settings.clock.currentDate)
                failures.metrics.cancelled(cancelled)
            } catch {
                failures.report(
                    .record, "cannot cancel what was withheld of a cancelled notification", error: error,
                    metadata: ["notification": "\(notificationID)"])
            }
        }
    }

}
