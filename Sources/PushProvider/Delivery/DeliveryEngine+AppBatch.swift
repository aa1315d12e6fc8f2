import APNSClient
import Foundation
import HeraldSupport
import HeraldTime
import Logging
import ProviderStorage
import Synchronization

/// One app's part of a leased batch, as a loop over named steps: prepare (app, sender, payloads), then per chunk
/// decide what the next chunk is (paused, APNs unreachable, cancelled, or how many may go), send it, and count its
/// answers.
extension DeliveryEngine {
    /// What the next step of an app's batch is, from a position on.
    enum NextChunk: Equatable {
        /// The app was paused: what is left waits with this reason, no attempt spent.
        case paused(String)
        /// APNs cannot be reached now: what is left waits for the probe at that time.
        case unreachable(until: Date, probeSentAt: Date?)
        /// That many deliveries belong to cancelled notifications: withheld, not sent.
        case withhold(Int)
        /// That many deliveries go out now.
        case send(Int)
    }

    /// Sends `deliveries`, all of app `appID`, chunk by chunk, into `buffer`. Cancelled (the provider stops): what is
    /// not sent stays leased, and the engine puts it back as it ends.
    func send(
        _ deliveries: [LeasedDelivery], appID: String, into buffer: ResultBuffer, withheld: WithheldDeliveries
    ) async {
        guard let (prepared, client) = await prepare(deliveries, appID: appID, into: buffer) else { return }
        let rateChunk = prepared.rateLimit > 0 ? max(1, prepared.rateLimit / 10) : prepared.notifications.count
        var pauseCheck = PauseCheck(appID: appID, interval: Self.pauseCheckInterval)
        // Whether a delivery of this batch already waits for the next probe: the rest are parked behind it.
        var probeWaits = false
        var start = 0
        while start < prepared.notifications.count, !Task.isCancelled {
            let rest = prepared.deliveries[start...]
            switch await nextChunk(prepared, from: start, rateChunk: rateChunk, pauseCheck: &pauseCheck) {
            case .paused(let reason):
                for delivery in rest {
                    buffer.append(.wait(id: delivery.id, reason: reason, notBefore: Self.pausedUntil))
                }
                withheld.paused(appID)
                return
            case .unreachable(let next, let probeSentAt):
                // One delivery comes back for the next probe, the rest are parked until a probe connects.
                for position in rest.indices {
                    buffer.append(
                        waitForAPNs(
                            prepared, at: position, until: next, parked: probeWaits || position > start,
                            probeSentAt: probeSentAt))
                }
                return
            case .withhold(let count):
                for delivery in rest.prefix(count) {
                    buffer.append(.wait(id: delivery.id, reason: Self.cancelledReason, notBefore: Self.pausedUntil))
                    withheld.cancelled(delivery.notificationID)
                }
                start += count
            case .send(let count):
                let positions = start..<(start + count)
                start += count
                probeWaits =
                    await sendChunk(
                        prepared, positions, with: client, appID: appID, into: buffer, withheld: withheld)
                    || probeWaits
            }
        }
    }

    /// The app's batch made ready to send: its sender and its notifications. `nil` when there is nothing to send:
    /// the app is paused (its deliveries wait, no attempt spent), the database failed (they wait too: a database
    /// restarting for minutes is a wait, never a loss), or the app or its credentials cannot be used (retried, each
    /// time an attempt).
    private func prepare(_ deliveries: [LeasedDelivery], appID: String, into buffer: ResultBuffer) async
        -> (PreparedBatch, any DeliverySender)?
    {
        do {
            guard let app = try await store.app(id: appID) else {
                throw ProviderError.notFound("app \(appID) no longer exists")
            }
            if app.app.pausedAt != nil {
                let reason = Self.parkingReason(of: app.app)
                for delivery in deliveries {
                    buffer.append(.wait(id: delivery.id, reason: reason, notBefore: Self.pausedUntil))
                }
                return nil
            }
            let client = try await senders.sender(for: app)
            let prepared = try await PreparedBatch(
                deliveries, app: app, store: store, now: settings.clock.currentDate)
            for failure in prepared.failures { buffer.append(failure) }
            return (prepared, client)
        } catch {
            let storage = (error as? ProviderError)?.code == .storage
            failures.report(
                .prepare,
                storage ? "cannot read the batch; the deliveries wait" : "cannot send; the deliveries are retried",
                error: error, metadata: ["app": "\(appID)", "count": "\(deliveries.count)"])
            let waitUntil = settings.clock.currentDate.addingTimeInterval(Self.storageWait)
            for delivery in deliveries {
                buffer.append(
                    storage
                        ? .wait(id: delivery.id, reason: "ProviderError", notBefore: waitUntil)
                        : answers.retryOrGiveUp(delivery, reason: "ProviderError"))
            }
            return nil
        }
    }

    /// Decides the chunk at `start`: whether the app was paused, waits out APNs' server trouble, asks whether APNs can
    /// be reached (a probe sends one), sends one while the app's credentials are unconfirmed, and stops at cancelled
    /// notifications.
    private func nextChunk(
        _ prepared: PreparedBatch, from start: Int, rateChunk: Int, pauseCheck: inout PauseCheck
    ) async -> NextChunk {
        if let reason = await pauseParking(&pauseCheck) { return .paused(reason) }
        let appID = pauseCheck.appID
        await serverTrouble.wait(appID: appID, clock: settings.clock)
        var size = serverTrouble.chunkSize(rateChunk, appID: appID)
        switch reachability.permit(appID: appID, now: settings.clock.currentDate) {
        case .all: break
        case .probe: size = APNSReachability.probeSize
        case .waitUntil(let next): return .unreachable(until: next, probeSentAt: nil)
        case .awaitProbe(let next, let sentAt): return .unreachable(until: next, probeSentAt: sentAt)
        }
        // Credentials APNs has not answered yet: one notification tells whether they hold.
        if !confirmedCredentials.withLock({ $0.contains(prepared.appRevision) }) { size = min(size, 1) }
        if !cancelled.isEmpty {
            let run = cancelled.run(in: prepared.deliveries, from: start, limit: size)
            return run.withheld > 0 ? .withhold(run.withheld) : .send(run.send)
        }
        return .send(min(size, prepared.notifications.count - start))
    }

    /// Sends the notifications at `positions` at the app's rate, records each answer, and then tells reachability and
    /// the server-trouble backoff what the chunk saw. Returns whether one of the chunk's deliveries waits for the next
    /// probe of APNs.
    private func sendChunk(
        _ prepared: PreparedBatch, _ positions: Range<Int>, with client: any DeliverySender, appID: String,
        into buffer: ResultBuffer, withheld: WithheldDeliveries
    ) async -> Bool {
        await limiter.acquire(positions.count, appID: appID, perSecond: prepared.rateLimit, clock: settings.clock)
        let tally = Mutex(ChunkTally())
        let spans = tracer.flatMap { ChunkSpans(prepared, positions, tracer: $0, topic: prepared.bundleID) }
        defer { spans?.end() }
        do {
            let answered: @Sendable (APNSSendOutcome) -> Void = { outcome in
                // The outcome's index is its place in the chunk: the delivery it answers, whatever its headers say.
                let position = positions.lowerBound + outcome.index
                guard tally.withLock({ $0.count(outcome.result, at: position) }) else { return }
                let delivery = prepared.deliveries[position]
                spans?.answered(outcome.result, at: position, notificationID: delivery.notificationID)
                buffer.append(self.answers.result(of: outcome.result, for: delivery, appID: appID))
            }
            if prepared.sendsTraceParent, let chunk = spans?.traced(prepared.notifications[positions]) {
                try await client.send(contentsOf: chunk, onResult: answered)
            } else {
                try await client.send(contentsOf: prepared.notifications[positions], onResult: answered)
            }
        } catch {
            // The app's key cannot sign: its credentials, as APNs' InvalidProviderToken would say; it pauses.
            failures.report(.sign, "cannot sign a provider token", error: error, metadata: ["app": "\(appID)"])
            let reason = CredentialPause.parkingReason("InvalidProviderToken")
            for delivery in prepared.deliveries[positions] {
                buffer.append(.wait(id: delivery.id, reason: reason, notBefore: Self.pausedUntil))
            }
            await pauseForCredentials(appID: appID, reason: "InvalidProviderToken")
            withheld.paused(appID)
            return false
        }
        let seen = tally.withLock { $0 }
        if let reason = seen.credentialRefusal {
            await pauseForCredentials(appID: appID, reason: reason)
            // What the refusal parks is recorded after the batch: woken then if the app was resumed meanwhile.
            withheld.paused(appID)
        } else if seen.answered > 0 {
            confirmedCredentials.withLock { _ = $0.insert(prepared.appRevision) }
        }
        let probeWaits = await waitForAPNs(
            prepared, seen.unreached, reason: seen.reason, answered: seen.answered, appID: appID, into: buffer)
        if let pause = serverTrouble.record(
            appID: appID, answered: seen.answered, troubled: seen.troubled, now: settings.clock.currentDate)
        {
            logger.warning(
                "APNs answered most of the app's notifications with 500 or 503; its sends pause",
                metadata: ["app": "\(appID)", "seconds": "\(pause)", "troubled": "\(seen.troubled)/\(seen.answered)"])
        }
        return probeWaits
    }
}
