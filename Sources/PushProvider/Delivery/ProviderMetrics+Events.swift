import Foundation
import Prometheus
import ProviderStorage

/// What the provider counts as it happens, one method per event, and the gauges read when `/metrics` is asked.
extension ProviderMetrics {
    /// Counts the rows the retention pruner deleted, by kind (`deliveries`, `traces`, `responses`, `notifications`).
    func pruned(_ kind: String, count: Int) {
        self.count(.prunedRows, kind, by: count)
    }

    /// The retention pruner finished a pass at `at`.
    func prunerPassed(at: Date) {
        set(.retentionLastPass, at.timeIntervalSince1970)
    }

    /// Counts an app this process paused because APNs refused its credentials with `reason`.
    func credentialPaused(reason: String) {
        count(.credentialPauses, reason)
    }

    /// Counts a check of an app's credentials (`POST /v1/apps/{id}/check`) by outcome.
    func credentialChecked(passed: Bool) {
        count(.credentialChecks, passed ? "passed" : "failed")
    }

    /// Counts an app whose connections to APNs stopped being made (once per outage).
    func apnsOutageBegan() {
        count(.apnsOutages)
    }

    /// Counts leased deliveries put back in the queue: `expired` leases, or those of a provider that stopped.
    func leasesTakenOver(_ count: Int, cause: String) {
        self.count(.leaseTakeovers, cause, by: count)
    }

    /// Counts deliveries cancelled with their notification (in the queue, or withheld by a worker and cancelled
    /// after its batch).
    func cancelled(_ count: Int) {
        deliveriesCancelled.increment(by: Int64(count))
    }

    /// Counts a device's receipt recorded (`repeated`: one already recorded, which counted nothing again).
    func receiptRecorded(event: String, repeated: Bool) {
        count(.receipts, event, repeated ? "repeated" : "recorded")
    }

    /// Counts a device's receipt refused: `invalid`, `unknown_delivery` or `unauthorized`.
    func receiptRefused(cause: String) {
        count(.receiptsRefused, cause)
    }

    /// Counts a webhook attempt by result: `sent` (2xx), `failed` (tried again later), `dead` (no attempt left).
    func webhookAttempt(result: String) {
        count(.webhookAttempts, result)
    }

    /// Counts a publishable-key request refused by one of ``PublicLimits`` (its name).
    func publicRefused(limit: String) {
        count(.publicLimited, limit.split(separator: " ").joined(separator: "_"))
    }

    /// Counts a request refused for who sent it: 401 (no or a wrong key) or 403 (a key that may not do it).
    func refused(status: Int) {
        count(.refusals, String(status))
    }

    /// Counts a failure the provider logged and went on from (``FailureReporter``).
    func failed(_ operation: String) {
        count(.failures, operation)
    }

    /// The metrics in Prometheus' text format, as `/metrics` serves them, with the gauges read now. The shared
    /// queue's gauges (its depth and age, the apps paused for their credentials, the webhook queue) come from one
    /// provider of those on the database (`sharedGauges`); the others say 0, so a `sum()` or `max()` counts them once.
    func exposition(
        store: any ProviderStore, reachability: APNSReachability, inFlight: Int, sharedGauges: Bool, now: Date
    ) async -> String {
        unreachableApps.set(Double(reachability.all.count))
        set(.apnsInFlight, Double(inFlight))
        guard sharedGauges else {
            for series in [MetricSeries.queueDepth, .credentialPausedApps, .queueLeased, .queueOldestDueAge] {
                set(series, 0)
            }
            for series in [MetricSeries.webhookQueuePending, .webhookQueueDead, .webhookQueueOldestAge] {
                set(series, 0)
            }
            return render()
        }
        if let depth = try? await store.queueDepth() { queueDepth.set(Double(depth)) }
        if let gauges = try? await store.queueGauges(now: now) {
            set(.queueLeased, Double(gauges.leased))
            set(.queueOldestDueAge, gauges.oldestDue.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        }
        if let apps = try? await store.apps() {
            credentialPausedApps.set(Double(apps.filter { $0.app.pauseReason != nil }.count))
        }
        if let webhooks = try? await store.webhookCounts() {
            set(.webhookQueuePending, Double(webhooks.pending))
            set(.webhookQueueDead, Double(webhooks.dead))
            set(.webhookQueueOldestAge, webhooks.oldestPending.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        }
        return render()
    }
}
