import APNSCore
import Foundation
import NIOCore

/// The connection pool's decisions, apart from its connections, locks and event loops: which connection a batch
/// goes to, and what an attempt's outcome becomes (the notification's result, a retry after a backoff, a resend at
/// once, a retry with a newly signed provider token). Values in, a value out: each rule is tested alone.
struct PoolDecisions: Sendable {
    let retryPolicy: APNSRetryPolicy
    let maximumConnections: Int
    /// Whether the client signs provider tokens (an expired one can be signed again).
    let signsTokens: Bool
    /// The client's deadline for a notification, named in the result of one that passes it.
    let timeout: Duration

    /// Where a batch goes.
    enum Placement: Equatable {
        /// The open connection at this position, the one with the most room.
        case existing(Int)
        /// A new connection: every open one is full and there may be more.
        case open
    }

    /// Where a batch goes, given the room (free streams) of each open connection in order: the one with the most
    /// room; a new connection when none has room and fewer than ``maximumConnections`` are open; when all are
    /// full at the limit, the one with the most room still (its batch waits there for a stream).
    func place(rooms: [Int]) -> Placement {
        guard let best = rooms.indices.max(by: { rooms[$0] < rooms[$1] }) else { return .open }
        return rooms[best] > 0 || rooms.count >= maximumConnections ? .existing(best) : .open
    }

    /// What becomes of a notification after an attempt.
    enum Next: Equatable {
        /// It ends with this result.
        case finish(APNSResult)
        /// It is sent again after `delay` (its `attempt`-th attempt failed with `rejection`).
        case retry(after: Duration, attempt: Int, APNSRejection)
        /// It is sent again at once, not counted as an attempt (the server never processed it).
        case resendNow
        /// A new provider token is signed and it is sent again (APNs said `ExpiredProviderToken`).
        case renewToken(APNSRejection)
    }

    /// What becomes of a notification after an attempt.
    ///
    /// - Parameters:
    ///   - outcome: how the attempt ended.
    ///   - attempts: its attempts so far, this one included when it was written (a connection that could not be
    ///     made counts as one).
    ///   - isCancelled: whether its send was cancelled.
    ///   - isChannelRequest: whether it is a channel management request (its acceptance carries the status, channel
    ///     ID and body).
    ///   - now: the time now.
    ///   - deadline: its deadline: a retry that would start after it is not made.
    /// - Returns: its result, or how it is sent again.
    func next(
        after outcome: AttemptOutcome, attempts: Int, isCancelled: Bool, isChannelRequest: Bool, now: NIODeadline,
        deadline: NIODeadline
    ) -> Next {
        if isCancelled, let written = outcome.cancelledInstead {
            return .finish(Self.cancelled(written: written, attempts: attempts))
        }
        let retry = { (rejection: APNSRejection) -> Next in
            let attempt = max(attempts, 1)
            guard attempt < retryPolicy.maximumAttempts, !isCancelled else { return .finish(.rejected(rejection)) }
            let delay = retryPolicy.backoff(afterAttempts: attempt)
            guard now + TimeAmount(delay) < deadline else { return .finish(.rejected(rejection)) }
            return .retry(after: delay, attempt: attempt, rejection)
        }
        switch outcome {
        case .answered(let status, let parts):
            if (200..<300).contains(status) {
                var acceptance = APNSAcceptance(apnsID: parts.apnsID ?? "", uniqueID: parts.uniqueID)
                if isChannelRequest {
                    acceptance.status = status
                    acceptance.channelID = parts.channelID
                    acceptance.body = parts.body.map { Array($0.readableBytesView) }
                }
                return .finish(.accepted(acceptance))
            }
            let rejection = Self.rejection(status: status, apnsID: parts.apnsID, body: parts.body)
            switch rejection.reason.retryAdvice(status: status) {
            case .afterBackoff where !retryPolicy.retriesAnswers:
                return .finish(.rejected(rejection))
            case .afterBackoff, .onNewConnection:
                return retry(rejection)
            case .withNewProviderToken where signsTokens:
                guard attempts < retryPolicy.maximumAttempts, !isCancelled else { return .finish(.rejected(rejection)) }
                return .renewToken(rejection)
            default:
                return .finish(.rejected(rejection))
            }
        case .notProcessed(let reason):
            return attempts == 0
                ? .resendNow : retry(APNSRejection(status: nil, reason: .streamReset, message: reason))
        case .lost(let reason):
            return retry(APNSRejection(status: nil, reason: .streamReset, message: reason))
        case .connectionFailed(let reason, let retryable):
            let rejection = APNSRejection(status: nil, reason: .connectionFailed, message: reason)
            return retryable && retryPolicy.retriesUnreachable ? retry(rejection) : .finish(.rejected(rejection))
        case .cancelled(let written):
            return .finish(Self.cancelled(written: written, attempts: attempts))
        case .deadlineExceeded:
            let seconds = timeout.components.seconds
            return .finish(
                .rejected(
                    APNSRejection(
                        status: nil, reason: .deadlineExceeded,
                        message:
                            "no answer before the deadline (\(seconds) s unless given) after \(attempts) attempt(s)"
                    )))
        }
    }

    /// The result of a notification whose send was cancelled.
    static func cancelled(written: Bool, attempts: Int) -> APNSResult {
        let message =
            written
            ? "the send was cancelled while APNs had it; it may have been delivered"
            : "the send was cancelled before it was written to APNs (\(attempts) attempt(s) before)"
        return .rejected(APNSRejection(status: nil, reason: .cancelled, message: message))
    }

    /// The rejection an error answer describes; a body that is not APNs' JSON is reported as such.
    static func rejection(status: Int, apnsID: String?, body: ByteBuffer?) -> APNSRejection {
        let data = body.map { Data($0.readableBytesView) } ?? Data()
        guard let response = try? APNSErrorResponse(data: data) else {
            let text = String(decoding: data.prefix(200), as: UTF8.self)
            return APNSRejection(
                status: status, reason: .invalidResponse, apnsID: apnsID,
                message: "status \(status) without an APNs reason\(text.isEmpty ? "" : ": \(text)")")
        }
        let summary = APNSReason.catalog[response.reason]?.summary ?? "APNs answered \(status) \(response.reason)"
        // The local APNs says exactly what was wrong when asked (never Apple).
        let message = response.explanation.map { "\(summary) The server says: \(String($0.prefix(500)))" } ?? summary
        return APNSRejection(
            status: status, reason: response.reason, timestamp: response.invalidSince, apnsID: apnsID,
            message: message)
    }
}
