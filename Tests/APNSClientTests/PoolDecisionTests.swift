import APNSCore
import NIOCore
import Testing

@testable import APNSClient

/// The connection pool's decisions alone (``PoolDecisions``): where a batch goes, and what each kind of outcome
/// becomes under each retry setting, with no connection or event loop.
@Suite("The connection pool's decisions, alone")
struct PoolDecisionTests {
    let now = NIODeadline.uptimeNanoseconds(1_000_000_000_000)
    var later: NIODeadline { now + .seconds(10) }

    func decisions(
        attempts: Int = 4, retriesAnswers: Bool = true, retriesUnreachable: Bool = true, signsTokens: Bool = true,
        connections: Int = 2
    ) -> PoolDecisions {
        var policy = APNSRetryPolicy(maximumAttempts: attempts)
        policy.retriesAnswers = retriesAnswers
        policy.retriesUnreachable = retriesUnreachable
        return PoolDecisions(
            retryPolicy: policy, maximumConnections: connections, signsTokens: signsTokens, timeout: .seconds(30))
    }

    func answer(_ status: Int, _ reason: String? = nil, apnsID: String? = "A") -> AttemptOutcome {
        var parts = ResponseParts()
        parts.status = status
        parts.apnsID = apnsID
        if let reason { parts.body = ByteBuffer(string: #"{"reason":"\#(reason)"}"#) }
        return .answered(status: status, parts)
    }

    func next(
        _ outcome: AttemptOutcome, attempts: Int = 1, cancelled: Bool = false, channel: Bool = false,
        deadline: NIODeadline? = nil, _ decisions: PoolDecisions? = nil
    ) -> PoolDecisions.Next {
        (decisions ?? self.decisions()).next(
            after: outcome, attempts: attempts, isCancelled: cancelled, isChannelRequest: channel, now: now,
            deadline: deadline ?? later)
    }

    func reason(_ next: PoolDecisions.Next) -> String? {
        switch next {
        case .finish(.rejected(let rejection)), .retry(_, _, let rejection), .renewToken(let rejection):
            rejection.reason.rawValue
        case .finish(.accepted), .resendNow: nil
        }
    }

    @Test("a batch goes to the connection with the most room; a new one opens only when all are full below the limit")
    func placement() {
        let two = decisions(connections: 2)
        #expect(two.place(rooms: []) == .open, "no connection yet")
        #expect(two.place(rooms: [3, 10, 5]) == .existing(1))
        #expect(two.place(rooms: [0]) == .open, "full, one more allowed")
        #expect(two.place(rooms: [0, 0]) == .existing(0), "full at the limit: it waits on one for a stream")
        #expect(two.place(rooms: [0, 1]) == .existing(1))
        #expect(decisions(connections: 1).place(rooms: [0]) == .existing(0))
    }

    @Test("2xx is accepted with apns-id and apns-unique-id; a channel request's acceptance carries status, ID, body")
    func accepted() {
        var parts = ResponseParts()
        parts.apnsID = "A"
        parts.uniqueID = "U"
        parts.channelID = "C"
        parts.body = ByteBuffer(string: "{}")
        #expect(next(.answered(status: 200, parts)) == .finish(.accepted(APNSAcceptance(apnsID: "A", uniqueID: "U"))))
        guard case .finish(.accepted(let channel)) = next(.answered(status: 201, parts), channel: true) else {
            Issue.record("a channel request's 201 is an acceptance")
            return
        }
        #expect(channel.status == 201 && channel.channelID == "C" && channel.body == Array("{}".utf8))
    }

    @Test("final reasons end at once; 429, 500 and 503 retry after a backoff unless the caller retries answers itself")
    func answers() {
        for reason in ["BadDeviceToken", "Unregistered", "PayloadTooLarge", "BadTopic"] {
            let status = reason == "Unregistered" ? 410 : 400
            guard case .finish(.rejected(let rejection)) = next(answer(status, reason)) else {
                Issue.record("\(reason) is final")
                continue
            }
            #expect(rejection.reason.rawValue == reason && rejection.status == status && rejection.apnsID == "A")
        }
        for (status, reason) in [(429, "TooManyRequests"), (500, "InternalServerError"), (503, "ServiceUnavailable")] {
            guard case .retry(let delay, 1, _) = next(answer(status, reason)) else {
                Issue.record("\(status) \(reason) is retried")
                continue
            }
            #expect(delay > .milliseconds(74) && delay <= .milliseconds(100), "the first backoff, less up to a quarter")
            let own = next(answer(status, reason), decisions(retriesAnswers: false))
            #expect(own.isFinal && self.reason(own) == reason, "the caller retries answers itself: final here")
        }
        #expect(reason(next(answer(503, "Shutdown"), decisions(retriesAnswers: false))) == "Shutdown")
        guard case .retry = next(answer(503, "Shutdown"), decisions(retriesAnswers: false)) else {
            Issue.record("a server shutting down never processed it: sent again on a new connection")
            return
        }
    }

    @Test("retries stop at the last attempt, at the deadline, and when the send was cancelled")
    func retryLimits() {
        let busy = answer(429, "TooManyRequests")
        guard case .retry(_, 3, _) = next(busy, attempts: 3) else {
            Issue.record("the third of four attempts is retried")
            return
        }
        #expect(reason(next(busy, attempts: 4)) == "TooManyRequests")
        guard case .finish = next(busy, attempts: 4) else {
            Issue.record("the fourth of four attempts is final")
            return
        }
        guard case .finish = next(busy, deadline: now + .milliseconds(50)) else {
            Issue.record("a retry after the deadline is not made")
            return
        }
        guard case .finish(.rejected(let rejection)) = next(busy, cancelled: true) else {
            Issue.record("a cancelled send is not retried")
            return
        }
        #expect(rejection.reason.rawValue == "TooManyRequests", "APNs answered: the answer stands")
    }

    @Test("ExpiredProviderToken signs a new token when the client signs them; with a certificate it is final")
    func expiredToken() {
        let expired = answer(403, "ExpiredProviderToken")
        #expect(reason(next(expired)) == "ExpiredProviderToken")
        guard case .renewToken = next(expired) else {
            Issue.record("a new token is signed")
            return
        }
        guard case .finish = next(expired, decisions(signsTokens: false)) else {
            Issue.record("a certificate cannot be renewed")
            return
        }
        guard case .finish = next(expired, attempts: 4) else {
            Issue.record("not past the last attempt")
            return
        }
    }

    @Test("unprocessed is resent at once the first time; lost retries; a connection never made as the caller says")
    func connectionOutcomes() {
        #expect(next(.notProcessed(reason: "GOAWAY"), attempts: 0) == .resendNow)
        guard case .retry(_, 1, let lost) = next(.lost(reason: "reset")) else {
            Issue.record("a lost stream is retried")
            return
        }
        #expect(lost.reason == .streamReset && lost.message == "reset")
        guard case .retry(_, 2, _) = next(.notProcessed(reason: "REFUSED_STREAM"), attempts: 2) else {
            Issue.record("refused after an attempt: retried after a backoff")
            return
        }
        let refused = AttemptOutcome.connectionFailed(reason: "connection refused", retryable: true)
        guard case .retry = next(refused) else {
            Issue.record("a refused connection is tried again")
            return
        }
        #expect(reason(next(refused, decisions(retriesUnreachable: false))) == "ConnectionFailed")
        guard case .finish = next(.connectionFailed(reason: "untrusted", retryable: false)) else {
            Issue.record("an untrusted server is final")
            return
        }
    }

    @Test("a cancelled send ends cancelled, saying whether APNs may have it; a deadline says its seconds")
    func cancelledAndDeadline() {
        guard case .finish(.rejected(let written)) = next(.lost(reason: "x"), cancelled: true) else {
            Issue.record("cancelled")
            return
        }
        #expect(written.reason == .cancelled && written.message.contains("may have been delivered"))
        guard case .finish(.rejected(let waiting)) = next(.notProcessed(reason: "x"), attempts: 2, cancelled: true)
        else {
            Issue.record("cancelled")
            return
        }
        #expect(waiting.message.contains("before it was written") && waiting.message.contains("2 attempt(s)"))
        guard case .finish(.rejected(let late)) = next(.deadlineExceeded, attempts: 3) else {
            Issue.record("deadline")
            return
        }
        #expect(late.reason == .deadlineExceeded && late.message.contains("30 s") && late.message.contains("3 attempt"))
    }

    @Test("an error answer without APNs' JSON says so, with the start of what came")
    func unreadableAnswer() {
        var parts = ResponseParts()
        parts.body = ByteBuffer(string: "<html>bad gateway</html>")
        guard case .retry(_, _, let rejection) = next(.answered(status: 502, parts)) else {
            Issue.record("a 5xx without a reason is retried")
            return
        }
        #expect(rejection.reason == .invalidResponse && rejection.message.contains("<html>bad gateway"))
    }
}

extension PoolDecisions.Next {
    /// Whether the notification ends here.
    var isFinal: Bool {
        if case .finish = self { return true }
        return false
    }
}
