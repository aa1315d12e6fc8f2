import APNSClient
import APNSCore
import APNSGateway
import Foundation
import NIOCore
import TestPacing
import Testing

@Suite("APNSClient against the live gateway: retries", .startsServers)
struct ClientRetryTests {
    @Test(
        "503 ServiceUnavailable, 429 TooManyRequests and 500 are sent again after a backoff, then accepted",
        arguments: [
            (503, APNSReason.serviceUnavailable), (429, APNSReason.tooManyRequests),
            (500, APNSReason.internalServerError),
        ])
    func retriedAfterBackoff(status: Int, reason: APNSReason) async throws {
        try await ClientHarness.with { gateway in
            gateway.server.faults.add(.init(effect: .answer(status: status, reason: reason), count: 2))
            let retries = RetryRecorder()
            let client = try gateway.client {
                $0.observer = retries
                $0.retryPolicy = APNSRetryPolicy(maximumAttempts: 4, initialBackoff: .milliseconds(20))
            }
            let started = ContinuousClock.now
            let result = try await client.send(gateway.notification())
            #expect(result.isAccepted)
            #expect(retries.all == [reason, reason])
            #expect(retries.delays.allSatisfy { $0 > .zero })
            #expect(ContinuousClock.now - started >= .milliseconds(15 + 30))
            #expect(gateway.server.faults.pending == 0)
            await client.shutdown()
        }
    }

    @Test("a transient failure that outlasts the attempts ends as that rejection, after exactly that many tries")
    func attemptsRunOut() async throws {
        try await ClientHarness.with { gateway in
            gateway.server.faults.add(.init(effect: .answer(status: 503, reason: .serviceUnavailable), count: 10))
            let client = try gateway.client {
                $0.retryPolicy = APNSRetryPolicy(maximumAttempts: 3, initialBackoff: .milliseconds(5))
            }
            let result = try await client.send(gateway.notification())
            guard case .rejected(let rejection) = result else {
                Issue.record("expected a rejection, got \(result)")
                return
            }
            #expect(rejection.status == 503)
            #expect(rejection.reason == .serviceUnavailable)
            #expect(gateway.server.faults.pending == 7)
            await client.shutdown()
        }
    }

    @Test("final reasons are never retried, even when the server says them with a transient-looking status")
    func finalReasonsNotRetried() async throws {
        try await ClientHarness.with { gateway in
            let retries = RetryRecorder()
            let client = try gateway.client { $0.observer = retries }
            for reason in [APNSReason.badDeviceToken, .unregistered, .payloadTooLarge, .topicDisallowed] {
                let status = reason.status ?? 400
                gateway.server.faults.add(.init(effect: .answer(status: status, reason: reason), count: 1))
                let result = try await client.send(gateway.notification())
                guard case .rejected(let rejection) = result else {
                    Issue.record("expected \(reason), got \(result)")
                    continue
                }
                #expect(rejection.reason == reason)
                #expect(rejection.status == status)
            }
            #expect(retries.count == 0)
            await client.shutdown()
        }
    }

    @Test("a GOAWAY in the middle of a burst loses nothing: every notification gets exactly one result")
    func goAwayMidBurst() async throws {
        try await ClientHarness.with { gateway in
            let client = try gateway.client { $0.maximumPendingNotifications = 64 }
            let ids = (0..<2000).map { _ in APNSMessageID() }
            let notifications = ids.map {
                gateway.notification(headers: APNSRequestHeaders(apnsID: $0, topic: "com.example.app"))
            }
            let results = ResultCollector()
            let faults = gateway.server.faults
            try await client.send(contentsOf: notifications) { outcome in
                if results.add(outcome) == 500 {
                    faults.add(.init(effect: .goAway(reason: .shutdown), count: 1))
                }
            }
            #expect(faults.pending == 0, "the GOAWAY was sent")
            let byID = results.countsByAPNSID()
            #expect(byID.count == ids.count)
            #expect(byID.values.allSatisfy { $0 == 1 })
            #expect(Set(byID.keys) == Set(ids.map(\.rawValue)))
            #expect(results.acceptedCount == ids.count)
            await client.shutdown()
        }
    }
}

/// Collects bulk outcomes from event loop threads.
final class ResultCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [APNSSendOutcome] = []

    /// Adds one and returns how many there are now.
    func add(_ outcome: APNSSendOutcome) -> Int {
        lock.withLock {
            outcomes.append(outcome)
            return outcomes.count
        }
    }

    func countsByAPNSID() -> [String: Int] {
        lock.withLock {
            var counts: [String: Int] = [:]
            for outcome in outcomes {
                counts[outcome.notification.requestID?.rawValue ?? "", default: 0] += 1
            }
            return counts
        }
    }

    var acceptedCount: Int { lock.withLock { outcomes.filter(\.result.isAccepted).count } }
    var all: [APNSSendOutcome] { lock.withLock { outcomes } }
}
