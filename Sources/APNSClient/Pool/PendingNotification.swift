import NIOCore

/// A notification inside the client, from the moment it is handed over until its result: how often it was sent,
/// by when it must end, whom to tell, and the answer as it arrives.
///
/// A class, so that moving it between queues costs one reference count. It has one owner at a time: the pool, then
/// one connection's handler on its event loop, then the pool again; each hand-over goes through the event loop's task
/// queue or a lock, so no two threads touch it at once.
// Safety: one owner at a time; every hand-over goes through an event loop's task queue or a lock.
final class PendingNotification: @unchecked Sendable {
    let notification: APNSNotification
    /// Its position in what the caller handed over (``APNSSendOutcome/index``).
    let index: Int
    /// The moment the client gives up and answers ``APNSReason/deadlineExceeded``.
    let deadline: NIODeadline
    /// Called exactly once with the outcome.
    let onResult: @Sendable (APNSSendOutcome) -> Void
    /// Set when the caller's task is cancelled; `nil` when the send cannot be.
    let cancellation: SendCancellation?
    /// How many times the client tried to send it: written to a connection, or a connection opened for it failed.
    var attempts = 0
    /// When it was first written, for latency.
    var firstSent: NIODeadline?
    /// When the current attempt was written: its answer's latency tells the connection the round trip.
    var lastSent: NIODeadline?
    /// The answer to the current attempt, as its frames arrive.
    var response = ResponseParts()

    init(
        notification: APNSNotification, index: Int = 0, deadline: NIODeadline, cancellation: SendCancellation? = nil,
        onResult: @escaping @Sendable (APNSSendOutcome) -> Void
    ) {
        self.notification = notification
        self.index = index
        self.deadline = deadline
        self.cancellation = cancellation
        self.onResult = onResult
    }

    /// Whether the caller gave up on it.
    var isCancelled: Bool { cancellation?.isCancelled ?? false }
}

/// How one attempt on one connection ended, before the pool decides between a result and a retry.
enum AttemptOutcome: Sendable {
    /// APNs answered: the status, and the headers and body as they came.
    case answered(status: Int, ResponseParts)
    /// The server never processed it: never written, above a GOAWAY's last stream, or `REFUSED_STREAM`.
    case notProcessed(reason: String)
    /// Written, but the connection ended or the stream was reset before an answer came.
    case lost(reason: String)
    /// No connection could be made; `retryable` is false when trying again cannot help (the server's certificate is
    /// not trusted, it does not speak HTTP/2).
    case connectionFailed(reason: String, retryable: Bool)
    /// Its deadline passed.
    case deadlineExceeded
    /// The caller's task was cancelled; `written` when it was on a stream (APNs may have it), not when it waited.
    case cancelled(written: Bool)
}

extension AttemptOutcome {
    /// For a cancelled send: what ends the notification instead of this outcome (whether it had been written), or
    /// `nil` when the outcome stands: an answer from APNs, or a cancellation already.
    var cancelledInstead: Bool? {
        switch self {
        case .answered, .cancelled: nil
        case .lost: true
        case .notProcessed, .connectionFailed, .deadlineExceeded: false
        }
    }
}
