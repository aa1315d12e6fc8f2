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
    private let store: any DeliveryQueue
    private let senders: any DeliverySenders
    private let settings: Settings
    private let limiter = RateLimiter()
    private let serverTrouble = ServerTroubleBackoff()
    /// Which apps cannot reach APNs now; their sends pause while one probe tries again.
    let reachability = APNSReachability()
    private let answers: AnswerPolicy
    private let logger: Logger
    private let failures: FailureReporter
    private let signal: WorkSignal
    private let lastLeaseTime = Mutex(Date.distantPast)
    /// Notifications cancelled while this engine may hold leases of them, and when: what it has not sent of them yet
    /// is not sent. Kept twice a lease's length, after which no lease of them can be left.
    private let stopped = Mutex<[String: Date]>([:])
    /// How many ``stopped`` holds: read without the lock before every chunk, so the send path pays a load when
    /// nothing was cancelled.
    private let stoppedCount = Atomic<Int>(0)
    /// Apps paused through this provider: a batch of theirs stops before its next chunk.
    private let pausedApps = Mutex<Set<String>>([])
    /// The provider's record of changes: notified when new work arrives, when deliveries are leased, after each
    /// batch of APNs' answers is recorded, and when a dead provider's leases are requeued.
    let changes: WorkSignal

    init(
        queue: any DeliveryQueue, senders: any DeliverySenders, settings: Settings, failures: FailureReporter,
        changes: WorkSignal
    ) {
        store = queue
        self.changes = changes
        let clock = settings.clock
        signal = WorkSignal(sleep: { try await clock.sleep(for: $0) })
        self.senders = senders
        self.settings = settings
        self.failures = failures
        logger = failures.logger
        answers = AnswerPolicy(maximumAttempts: settings.maximumAttempts, clock: clock)
    }

    /// Stops sending what this engine holds of a cancelled notification: its leased deliveries not written to APNs
    /// yet go back to the queue without spending an attempt, and are cancelled there after the batch.
    func stopSending(notificationID: String) {
        let now = settings.clock.currentDate
        let keep = settings.leaseDuration * 2
        stopped.withLock { stopped in
            stopped = stopped.filter { now.timeIntervalSince($0.value) < keep }
            stopped[notificationID] = now
            stoppedCount.store(stopped.count, ordering: .relaxed)
        }
    }

    /// Stops sending what this engine holds of paused app `appID`: its leased deliveries not written yet go back to
    /// the queue without spending an attempt. Other providers see the pause in the store within
    /// ``pauseCheckInterval``.
    func stopSending(appID: String) {
        pausedApps.withLock { _ = $0.insert(appID) }
    }

    /// Sends app `appID` again (resumed).
    func resumeSending(appID: String) {
        pausedApps.withLock { _ = $0.remove(appID) }
    }

    /// How often a batch being sent reads again whether its app was paused by another provider.
    static let pauseCheckInterval: TimeInterval = 1

    /// When a batch last read its app's pause from the store.
    struct PauseCheck {
        let appID: String
        let interval: TimeInterval
        var last = Date.distantPast
    }

    /// Whether the app of `check` was paused: here at once, by another provider (read from the store at most once
    /// an interval; a failed read is taken as not paused).
    private func isPaused(_ check: inout PauseCheck) async -> Bool {
        if pausedApps.withLock({ $0.contains(check.appID) }) { return true }
        let now = settings.clock.currentDate
        guard now.timeIntervalSince(check.last) >= check.interval else { return false }
        let first = check.last == .distantPast
        check.last = now
        // The batch read the app just before its first chunk.
        if first { return false }
        return (try? await store.app(id: check.appID))?.app.pausedAt != nil
    }

    /// After a batch: the apps whose deliveries it parked because they were paused, and that were resumed before the
    /// parked deliveries were recorded (so the resume did not wake them), are woken now.
    private func wakeResumed(_ apps: Set<String>) async {
        for appID in apps {
            guard pausedApps.withLock({ !$0.contains(appID) }),
                let app = try? await store.app(id: appID), app.app.pausedAt == nil
            else { continue }
            do {
                _ = try await store.wakeWaiting(
                    appID: appID, reason: DeliveryVerdict.pausedReason, now: settings.clock.currentDate)
            } catch {
                failures.report(
                    .record, "cannot wake the deliveries of a resumed app", error: error, metadata: ["app": "\(appID)"])
            }
        }
    }

    /// Tells idle workers there is new work now.
    func notify() {
        signal.notify()
        changes.notify()
    }

    /// Runs the workers until the task is cancelled, then releases any lease not sent yet.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.watchLeases() }
            group.addTask { await self.beat() }
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
                let now = leaseTime()
                let leased: [LeasedDelivery]
                do {
                    leased = try await store.lease(
                        owner: owner, limit: settings.batchSize, now: now, leaseFor: settings.leaseDuration)
                } catch {
                    unanswered.append(now.addingTimeInterval(settings.leaseDuration))
                    throw error
                }
                if leased.isEmpty {
                    await signal.wait(after: seen, upTo: settings.pollInterval)
                    continue
                }
                // Deliveries in flight are part of what a notification's report shows.
                changes.notify()
                await send(leased)
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

    /// Puts back deliveries whose worker died (its lease ran out).
    private func watchLeases() async {
        while !Task.isCancelled {
            do {
                let count = try await store.reclaimExpiredLeases(now: settings.clock.currentDate)
                if count > 0 {
                    logger.notice("requeued deliveries whose lease ran out", metadata: ["count": "\(count)"])
                    signal.notify()
                }
            } catch {
                failures.report(.reclaim, "cannot requeue expired leases", error: error)
            }
            try? await settings.clock.sleep(for: .seconds(max(1, settings.leaseDuration / 4)))
        }
    }

    /// Tells the store this engine is alive, and takes back the leases of engines that stopped saying so (killed).
    private func beat() async {
        while !Task.isCancelled {
            let (store, owner, staleAfter) = (self.store, self.owner, settings.staleAfter)
            // Its own task: a heartbeat cut short by cancellation must not leave a query half-done.
            do {
                let count = try await Task { try await store.heartbeat(owner: owner, staleAfter: staleAfter) }.value
                if count > 0 {
                    logger.notice(
                        "requeued deliveries of a provider that stopped answering", metadata: ["count": "\(count)"])
                    notify()
                }
            } catch {
                failures.report(.heartbeat, "cannot say this provider is alive", error: error)
            }
            try? await settings.clock.sleep(for: settings.heartbeatInterval)
        }
    }

    /// The `reason` of a leased delivery withheld because its notification was cancelled, until it is cancelled in
    /// the queue after its batch.
    static let cancelledReason = "Cancelled"

    /// Where a paused app's deliveries wait in the queue: far enough never to come due; resuming the app moves them
    /// to now.
    static let pausedUntil = Date(timeIntervalSince1970: 32_503_680_000)  // 3000-01-01

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

    /// How many deliveries from `start` on not to send, because their notification was cancelled (the run of them
    /// at `start`), or, when the one at `start` goes out, how many may go before the first that must not (`limit`
    /// at most). Called only when something was cancelled.
    private func cancelledRun(_ prepared: PreparedBatch, from start: Int, limit: Int) -> (withheld: Int, send: Int) {
        let stopped = self.stopped.withLock { Set($0.keys) }
        let end = min(prepared.deliveries.count, start + limit)
        var position = start
        while position < prepared.deliveries.count, stopped.contains(prepared.deliveries[position].notificationID) {
            position += 1
        }
        if position > start { return (position - start, 0) }
        while position < end, !stopped.contains(prepared.deliveries[position].notificationID) { position += 1 }
        return (0, position - start)
    }

    private func send(
        _ deliveries: [LeasedDelivery], appID: String, into buffer: ResultBuffer, withheld: WithheldDeliveries
    ) async {
        let prepared: PreparedBatch
        let client: any DeliverySender
        do {
            guard let app = try await store.app(id: appID) else {
                throw ProviderError.notFound("app \(appID) no longer exists")
            }
            if app.app.pausedAt != nil {
                // Paused: back to the queue without spending the attempt, until the app is resumed.
                for delivery in deliveries {
                    buffer.append(
                        .wait(id: delivery.id, reason: DeliveryVerdict.pausedReason, notBefore: Self.pausedUntil))
                }
                return
            }
            client = try await senders.sender(for: app)
            prepared = try await PreparedBatch(deliveries, app: app, store: store, now: settings.clock.currentDate)
        } catch {
            failures.report(
                .prepare, "cannot send; the deliveries are retried", error: error,
                metadata: ["app": "\(appID)", "count": "\(deliveries.count)"])
            for delivery in deliveries { buffer.append(answers.retryOrGiveUp(delivery, reason: "ProviderError")) }
            return
        }
        for failure in prepared.failures { buffer.append(failure) }
        let rateChunk = prepared.rateLimit > 0 ? max(1, prepared.rateLimit / 10) : prepared.notifications.count
        var start = 0
        // Cancelled (the provider stops): what is not sent stays leased, and the engine puts it back as it ends.
        var pauseCheck = PauseCheck(appID: appID, interval: Self.pauseCheckInterval)
        while start < prepared.notifications.count, !Task.isCancelled {
            if await isPaused(&pauseCheck) {
                // Paused meanwhile (here or by another provider): what is not written waits, no attempt spent.
                for delivery in prepared.deliveries[start...] {
                    buffer.append(
                        .wait(id: delivery.id, reason: DeliveryVerdict.pausedReason, notBefore: Self.pausedUntil))
                }
                withheld.paused(appID)
                return
            }
            await serverTrouble.wait(appID: appID, clock: settings.clock)
            var chunkSize = serverTrouble.chunkSize(rateChunk, appID: appID)
            switch reachability.permit(appID: appID, now: settings.clock.currentDate) {
            case .all: break
            case .probe: chunkSize = APNSReachability.probeSize
            case .waitUntil(let next):
                // APNs cannot be reached: what is left waits in the queue, spending no attempt; one delivery comes
                // back for the next probe, the rest are parked until a probe connects (or their time is up).
                for position in start..<prepared.notifications.count {
                    buffer.append(waitForAPNs(prepared, at: position, until: next, parked: position > start))
                }
                return
            }
            if stoppedCount.load(ordering: .relaxed) > 0 {
                let run = cancelledRun(prepared, from: start, limit: chunkSize)
                if run.withheld > 0 {
                    for delivery in prepared.deliveries[start..<(start + run.withheld)] {
                        buffer.append(
                            .wait(id: delivery.id, reason: Self.cancelledReason, notBefore: Self.pausedUntil))
                        withheld.cancelled(delivery.notificationID)
                    }
                    start += run.withheld
                    continue
                }
                chunkSize = run.send
            }
            let positions = start..<min(start + chunkSize, prepared.notifications.count)
            let chunk = prepared.notifications[positions]
            start += chunk.count
            await limiter.acquire(chunk.count, appID: appID, perSecond: prepared.rateLimit, clock: settings.clock)
            let answers = Mutex((answered: 0, troubled: 0, unreached: [Int](), reason: ""))
            do {
                try await client.send(contentsOf: chunk) { outcome in
                    if case .rejected(let rejection) = outcome.result, rejection.reason == .cancelled { return }
                    // The outcome's index is its place in `chunk`: the delivery it answers, whatever its headers say.
                    let position = positions.lowerBound + outcome.index
                    if case .rejected(let rejection) = outcome.result, rejection.reason == .connectionFailed {
                        // Never written: no connection could be made. It waits for APNs (after the chunk).
                        answers.withLock {
                            $0.unreached.append(position)
                            $0.reason = rejection.message
                        }
                        return
                    }
                    if case .rejected(let rejection) = outcome.result, let status = rejection.status {
                        answers.withLock {
                            $0.answered += 1
                            $0.troubled += status == 500 || status == 503 ? 1 : 0
                        }
                    } else if case .accepted = outcome.result {
                        answers.withLock { $0.answered += 1 }
                    }
                    buffer.append(
                        self.answers.result(of: outcome.result, for: prepared.deliveries[position], appID: appID))
                }
                let (answered, troubled, unreached, reason) = answers.withLock { $0 }
                await waitForAPNs(prepared, unreached, reason: reason, answered: answered, appID: appID, into: buffer)
                if let pause = serverTrouble.record(
                    appID: appID, answered: answered, troubled: troubled, now: settings.clock.currentDate)
                {
                    logger.warning(
                        "APNs answered most of the app's notifications with 500 or 503; its sends pause",
                        metadata: ["app": "\(appID)", "seconds": "\(pause)", "troubled": "\(troubled)/\(answered)"])
                }
            } catch {
                failures.report(.sign, "cannot sign a provider token", error: error, metadata: ["app": "\(appID)"])
                for delivery in prepared.deliveries[positions] {
                    buffer.append(
                        .rejected(
                            id: delivery.id, notificationID: delivery.notificationID, status: nil,
                            reason: "InvalidProviderToken", at: settings.clock.currentDate, deactivate: nil))
                }
            }
        }
    }

    /// After a chunk: the deliveries that could not be written (no connection) wait for APNs; the app's outage
    /// starts, goes on or ends by what the chunk saw.
    private func waitForAPNs(
        _ prepared: PreparedBatch, _ unreached: [Int], reason: String, answered: Int, appID: String,
        into buffer: ResultBuffer
    ) async {
        let now = settings.clock.currentDate
        if answered > 0 {
            if let outage = reachability.reached(appID: appID) {
                // The parked deliveries go out now, not when their parking ends; once more a second later, for those
                // another worker parked just before (its results are written every `flushInterval`).
                let (store, clock, signal) = (self.store, settings.clock, self.signal)
                let reason = APNSReachability.unreachableReason
                let woken = (try? await store.wakeWaiting(appID: appID, reason: reason, now: now)) ?? 0
                Task {
                    try? await clock.sleep(for: .seconds(1))
                    if let late = try? await store.wakeWaiting(appID: appID, reason: reason, now: clock.currentDate),
                        late > 0
                    {
                        signal.notify()
                    }
                }
                logger.notice(
                    "APNs is reachable again; the app's notifications go out",
                    metadata: ["app": "\(appID)", "since": "\(outage.since)", "waiting": "\(woken)"])
                signal.notify()
            }
        } else if unreached.isEmpty {
            reachability.abandonProbe(appID: appID)
        }
        guard !unreached.isEmpty else { return }
        let wasReachable = reachability.outage(appID: appID) == nil
        // Some of the chunk reached APNs: the failures were the connection's, tried again in a second.
        let next =
            answered > 0
            ? now.addingTimeInterval(APNSReachability.firstWait)
            : reachability.failed(appID: appID, reason: reason, now: now)
        if wasReachable, answered == 0 {
            logger.warning(
                "APNs cannot be reached; the app's notifications wait in the queue (no attempt spent), one probe tries again with backoff",
                metadata: ["app": "\(appID)", "reason": "\(reason)"])
        }
        for (index, position) in unreached.enumerated() {
            buffer.append(waitForAPNs(prepared, at: position, until: next, parked: answered == 0 && index > 0))
        }
    }

    /// One delivery that waits for APNs: until `next` (the next probe), or, `parked`, until a probe connects
    /// (``APNSReachability/parking`` at most, so a provider that restarts meanwhile finds it again); it gives up
    /// when its notification expires before the next probe.
    private func waitForAPNs(_ prepared: PreparedBatch, at position: Int, until next: Date, parked: Bool)
        -> DeliveryResult
    {
        let delivery = prepared.deliveries[position]
        let reason = APNSReachability.unreachableReason
        let limit = prepared.waitLimits[position]
        guard next <= limit else {
            return .rejected(
                id: delivery.id, notificationID: delivery.notificationID, status: nil, reason: reason,
                at: settings.clock.currentDate, deactivate: nil)
        }
        let until = parked ? max(next, min(limit, settings.clock.currentDate + APNSReachability.parking)) : next
        return .wait(id: delivery.id, reason: reason, notBefore: until)
    }

    /// Writes APNs' answers. A write that fails (the database restarting, a lost connection) is tried again with
    /// backoff (50 ms doubling to 2 s) for as long as the batch's leases hold, extending them while it can: a blip
    /// shorter than the lease costs a blip, and nothing is sent twice because of it. Past the lease, another worker
    /// may have leased the deliveries again; the answers are dropped (the store writes only the owner's leases) and
    /// those deliveries are resent with the same `apns-id`.
    private func record(_ results: [DeliveryResult], leasedUntil: Date) async {
        guard !results.isEmpty else { return }
        // A separate task, so that shutting down (cancelling the workers) never cancels writing what APNs answered.
        let (store, owner, clock, leaseDuration) = (self.store, self.owner, settings.clock, settings.leaseDuration)
        let now = { clock.currentDate }
        let written = await Task { () -> Bool in
            var wait: TimeInterval = 0.05
            var failures = 0
            var until = leasedUntil
            // A write that fails for good (not a blip) must not hold the batch forever.
            let giveUpAt = now().addingTimeInterval(leaseDuration * 5)
            while true {
                do {
                    try await store.record(results, owner: owner)
                    return true
                } catch {
                    failures += 1
                    let extended = now().addingTimeInterval(leaseDuration * 0.9)
                    if (try? await store.extendLeases(owner: owner, until: extended)) != nil { until = extended }
                    let next = now().addingTimeInterval(wait)
                    let retry = next < until && next < giveUpAt
                    if failures == 1 || !retry {
                        self.failures.report(
                            .record,
                            retry
                                ? "cannot record APNs' answers; trying again while the leases hold"
                                : "cannot record APNs' answers; they are sent again when their leases run out",
                            error: error, metadata: ["count": "\(results.count)", "owner": "\(owner)"])
                    }
                    guard retry else { return false }
                    try? await settings.clock.sleep(for: .seconds(wait))
                    wait = min(wait * 2, 2)
                }
            }
        }.value
        if written { changes.notify() }
    }
}
