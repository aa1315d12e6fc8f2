import APNSClient
import APNSCore
import APNSGateway
import Foundation
import NIOCore
import TestPacing
import Testing

@Suite("APNSClient against the live gateway: results", .startsServers)
struct ClientResultTests {
    @Test("an accepted notification carries the apns-id sent and the development apns-unique-id")
    func accepted() async throws {
        try await ClientHarness.with { gateway in
            let client = try gateway.client()
            let id = APNSMessageID()
            let result = try await client.send(
                gateway.notification(headers: APNSRequestHeaders(apnsID: id, topic: "com.example.app")))
            guard case .accepted(let acceptance) = result else {
                Issue.record("expected acceptance, got \(result)")
                return
            }
            #expect(acceptance.apnsID == id.rawValue)
            #expect(acceptance.uniqueID?.count == 36)
            await client.shutdown()
        }
    }

    @Test("each rejection comes back with APNs' status and reason, and is not retried")
    func rejections() async throws {
        try await ClientHarness.with { gateway in
            let retries = RetryRecorder()
            let client = try gateway.client { $0.observer = retries }
            let unknown = String(repeating: "ab", count: 32)
            let cases: [(APNSNotification, Int, APNSReason)] = [
                (gateway.notification(to: unknown), 400, .badDeviceToken),
                (
                    gateway.notification(headers: APNSRequestHeaders(topic: "com.other.app")), 400,
                    .deviceTokenNotForTopic
                ),
                (gateway.notification(headers: APNSRequestHeaders()), 400, .missingTopic),
                (
                    APNSNotification(
                        deviceToken: gateway.device.token.hex, headers: APNSRequestHeaders(topic: "com.example.app"),
                        payload: ByteBuffer()), 400, .payloadEmpty
                ),
                (
                    APNSNotification(
                        deviceToken: gateway.device.token.hex, headers: APNSRequestHeaders(topic: "com.example.app"),
                        payload: ByteBuffer(string: "{\"x\":\"\(String(repeating: "a", count: 5000))\"}")), 413,
                    .payloadTooLarge
                ),
            ]
            for (notification, status, reason) in cases {
                let result = try await client.send(notification)
                guard case .rejected(let rejection) = result else {
                    Issue.record("expected \(reason), got \(result)")
                    continue
                }
                #expect(rejection.status == status)
                #expect(rejection.reason == reason)
            }
            #expect(retries.count == 0)
            await client.shutdown()
        }
    }

    @Test("a token whose app was removed is 410 Unregistered with the time it stopped being valid")
    func unregistered() async throws {
        try await ClientHarness.with { gateway in
            let removedAt = Date(timeIntervalSince1970: 1_700_000_000.123)
            #expect(try gateway.server.registry.invalidate(gateway.device.token, reason: .unregistered, at: removedAt))
            let client = try gateway.client()
            let result = try await client.send(gateway.notification())
            guard case .rejected(let rejection) = result else {
                Issue.record("expected 410, got \(result)")
                return
            }
            #expect(rejection.status == 410)
            #expect(rejection.reason == .unregistered)
            #expect(rejection.timestamp.map { abs($0.timeIntervalSince(removedAt)) < 0.001 } == true)
            await client.shutdown()
        }
    }
}

/// Counts retries the client announces.
final class RetryRecorder: APNSClientObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var reasons: [APNSReason] = []
    private var waits: [Duration] = []

    func notificationRetried(reason: APNSReason, attempt: Int, delay: Duration) {
        lock.withLock {
            reasons.append(reason)
            waits.append(delay)
        }
    }

    var delays: [Duration] { lock.withLock { waits } }

    var count: Int { lock.withLock { reasons.count } }
    var all: [APNSReason] { lock.withLock { reasons } }
}
