/// A notification leaving a connection with the outcome of its attempt.
typealias FinishedAttempt = (pending: PendingNotification, outcome: AttemptOutcome)

/// What a connection tells its pool, on the connection's event loop.
struct ConnectionEvents: Sendable {
    /// Notifications leave the connection with the outcomes of their attempts, in batches (those finished during one
    /// turn of the event loop), so the pool can turn them into results away from the connection's loop.
    let finished: @Sendable ([FinishedAttempt]) -> Void
    /// The connection takes no more work (GOAWAY, closed, or it could not be opened).
    let stoppedTakingWork: @Sendable () -> Void
    /// The connection could not be opened, and why: said once per connection, however many notifications waited.
    var failedToConnect: @Sendable (String) -> Void = { _ in }
}
