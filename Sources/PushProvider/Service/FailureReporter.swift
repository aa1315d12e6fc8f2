import Logging

/// What the provider could not do and went on from: logged at error level with metadata, and counted in `/metrics`
/// as `herald_provider_failures_total{operation}`, so a failing store or webhook is never silent.
struct FailureReporter: Sendable {
    /// The kinds of failure, the `operation` label.
    enum Operation: String, Sendable {
        /// Leasing deliveries from the queue.
        case lease
        /// Writing APNs' answers; the deliveries are sent again, with the same `apns-id`, when their leases run out.
        case record
        /// Putting expired leases back in the queue.
        case reclaim
        /// Saying this provider is alive (a shared PostgreSQL queue).
        case heartbeat
        /// Reading an app and its deliveries before sending.
        case prepare
        /// Signing a provider token.
        case sign
        /// Queuing a daily notification's occurrences.
        case schedule
        /// Deleting records past their retention.
        case prune
        /// Calling an app's webhook.
        case webhook
        /// Writing a change to the audit log.
        case audit
    }

    let logger: Logger
    let metrics: ProviderMetrics

    /// Logs and counts one failure.
    func report(
        _ operation: Operation, _ message: Logger.Message, error: (any Error)? = nil, metadata: Logger.Metadata = [:]
    ) {
        var metadata = metadata
        metadata["operation"] = "\(operation.rawValue)"
        if let error { metadata["error"] = "\(error)" }
        logger.error(message, metadata: metadata)
        metrics.failed(operation.rawValue)
    }
}
