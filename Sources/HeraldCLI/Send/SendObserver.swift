import APNSClient
import APNSCore

/// Counts the client's retries, answer times, stream limits and connections into the summary.
struct SendObserver: APNSClientObserver {
    let summary: SendSummary

    func notificationRetried(reason: APNSReason, attempt: Int, delay: Duration) {
        summary.recordRetry()
    }

    func notificationFinished(_ notification: APNSNotification, result: APNSResult, latency: Duration) {
        summary.recordAnswer(after: latency)
    }

    func streamsChanged(open: Int, limit: Int) {
        summary.recordStreamLimit(limit)
    }

    func connectionsChanged(open: Int) {
        summary.recordConnections(open)
    }

    func roundTripMeasured(_ roundTrip: Duration) {
        summary.recordRoundTrip(roundTrip)
    }
}
