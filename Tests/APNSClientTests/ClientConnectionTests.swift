import APNSClient
import APNSCore
import APNSGateway
import Crypto
import Foundation
import HeraldTime
import NIOCore
import TestPacing
import Testing

@testable import APNSClient

@Suite("APNSClient against the live gateway: streams, tokens, bounded memory", .startsServers)
struct ClientConnectionTests {
    @Test("one stream until the first valid token, then as many as the server's new SETTINGS allow")
    func streamLimitFollowsSettings() async throws {
        try await ClientHarness.with { gateway in
            let streams = StreamRecorder()
            let client = try gateway.client { $0.observer = streams }
            let results = ResultCollector()
            try await client.send(contentsOf: (0..<300).map { _ in gateway.notification() }) { _ = results.add($0) }
            #expect(results.acceptedCount == 300)
            let changes = streams.all
            #expect(changes.first?.limit == 1, "the gateway allows one stream before the first valid token")
            #expect(changes.allSatisfy { $0.open <= $0.limit })
            #expect(changes.contains { $0.limit == 1000 }, "the gateway's 1000, as APNs allows after a token")
            #expect(changes.contains { $0.open > 1 }, "after the first token, streams run side by side")
            let firstRaise = changes.firstIndex { $0.limit > 1 } ?? 0
            #expect(changes[..<firstRaise].allSatisfy { $0.open <= 1 })
            await client.shutdown()
        }
    }

    @Test("a second connection opens only when the first uses every stream it may; both carry notifications")
    func poolOpensConnectionsAsNeeded() async throws {
        try await ClientHarness.with { gateway in
            let connections = ConnectionRecorder()
            let client = try gateway.client {
                $0.observer = connections
                $0.maximumConnections = 2
                $0.maximumStreamsPerConnection = 10
            }
            #expect(try await client.send(gateway.notification()).isAccepted)
            #expect(connections.maximum == 1, "one notification needs one connection")
            let results = ResultCollector()
            try await client.send(contentsOf: (0..<400).map { _ in gateway.notification() }) { _ = results.add($0) }
            #expect(results.acceptedCount == 400)
            #expect(connections.maximum == 2)
            await client.shutdown()
        }
    }

    @Test("each bulk outcome names the notification's position in the sequence, once, whichever connection answered")
    func outcomesCarryTheirPosition() async throws {
        try await ClientHarness.with { gateway in
            let client = try gateway.client {
                $0.maximumConnections = 2
                $0.maximumStreamsPerConnection = 10
            }
            // Every fifth goes to a token the gateway never issued; the headers give no apns-id to tell them apart.
            let unknown = String(repeating: "ab", count: 32)
            let notifications = (0..<400).map { gateway.notification(to: $0 % 5 == 0 ? unknown : nil) }
            let results = ResultCollector()
            try await client.send(contentsOf: notifications) { _ = results.add($0) }
            let outcomes = results.all
            #expect(outcomes.map(\.index).sorted() == Array(0..<400), "every position exactly once")
            for outcome in outcomes {
                #expect(outcome.result.isAccepted == (outcome.index % 5 != 0), "position \(outcome.index)")
                #expect(outcome.notification.deviceToken == notifications[outcome.index].deviceToken)
            }
            await client.shutdown()
        }
    }

    @Test("the provider token is reused for 20 minutes and more, and signed anew after the policy's interval")
    func tokenRefreshedOnSchedule() async throws {
        let clock = ManualClock(start: Date())
        let key = try APNSProviderTokenSigner(
            privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let cache = ProviderTokenCache(
            signer: key, policy: APNSProviderTokenPolicy(refreshInterval: .seconds(50 * 60)), clock: clock)
        let first = try await cache.authorization()
        clock.advance(by: .seconds(19 * 60))
        #expect(try await cache.authorization() == first)
        clock.advance(by: .seconds(30 * 60))
        #expect(try await cache.authorization() == first, "49 minutes old: still used")
        clock.advance(by: .seconds(2 * 60))
        let second = try await cache.authorization()
        #expect(second != first, "51 minutes old: signed anew")
        clock.advance(by: .seconds(10))
        #expect(try await cache.authorization() == second)
        cache.expireIfRefreshAllowed()
        #expect(try await cache.authorization() == second, "never a new token sooner than 20 minutes")
    }

    @Test("after a refresh on the client's clock, the gateway accepts the new token on the same connection")
    func refreshedTokenAccepted() async throws {
        try await ClientHarness.with { gateway in
            let clock = ManualClock(start: Date())
            let client = try gateway.client { configuration in
                configuration.clock = clock
            }
            #expect(try await client.send(gateway.notification()).isAccepted)
            clock.advance(by: .seconds(25 * 60))
            #expect(try await client.send(gateway.notification()).isAccepted)
            await client.shutdown()
        }
    }

    @Test("a bulk send reads its sequence only as room frees up: memory does not grow with the input")
    func bulkSendIsBounded() async throws {
        try await ClientHarness.with { gateway in
            let window = 128
            let client = try gateway.client { $0.maximumPendingNotifications = window }
            let count = 5000
            let produced = Counter()
            let finished = Counter()
            let highWater = Counter()
            let notification = gateway.notification()
            let input = (0..<count).lazy.map { _ in
                let inside = produced.increment() - finished.value
                highWater.raise(to: inside)
                return notification
            }
            try await client.send(contentsOf: input) { _ in _ = finished.increment() }
            #expect(finished.value == count)
            #expect(highWater.value <= window + APNSPushClient.batchSize)
            await client.shutdown()
        }
    }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }
    func raise(to value: Int) { lock.withLock { count = max(count, value) } }
    var value: Int { lock.withLock { count } }
}

/// Records the number of open connections.
final class ConnectionRecorder: APNSClientObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int] = []

    func connectionsChanged(open: Int) {
        lock.withLock { counts.append(open) }
    }

    var maximum: Int { lock.withLock { counts.max() ?? 0 } }
}

/// Records every change of open streams and stream limit.
final class StreamRecorder: APNSClientObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var changes: [(open: Int, limit: Int)] = []

    func streamsChanged(open: Int, limit: Int) {
        lock.withLock { changes.append((open, limit)) }
    }

    var all: [(open: Int, limit: Int)] { lock.withLock { changes } }
}

@Suite("APNSClient with certificate authentication against the live gateway", .startsServers)
struct ClientCertificateTests {
    @Test("a PEM provider certificate authenticates the connection; no provider token, all streams from the start")
    func pemCertificate() async throws {
        try await ClientHarness.with { gateway in
            let issued = try gateway.server.certificateAuthority.issuePushCertificate(
                PushCertificate(bundleID: "com.example.app", environments: [.development]))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cert-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let both = directory.appendingPathComponent("both.pem")
            try Data((issued.certificatePEM + issued.privateKeyPEM).utf8).write(to: both)
            var configuration = try gateway.configuration()
            configuration.authentication = .certificate(try .pem(certificatePath: both.path))
            let streams = StreamRecorder()
            configuration.observer = streams
            let client = try APNSPushClient(configuration: configuration)
            #expect(try await client.send(gateway.notification()).isAccepted)
            #expect(streams.all.first?.limit == 1000, "no one-stream start without a token")
            await client.shutdown()
        }
    }

    @Test("a certificate for production on the development environment is 403 BadCertificateEnvironment, not retried")
    func wrongEnvironment() async throws {
        try await ClientHarness.with { gateway in
            let issued = try gateway.server.certificateAuthority.issuePushCertificate(
                PushCertificate(bundleID: "com.example.app", environments: [.production]))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cert-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let certificate = directory.appendingPathComponent("cert.pem")
            let key = directory.appendingPathComponent("key.pem")
            try Data(issued.certificatePEM.utf8).write(to: certificate)
            try Data(issued.privateKeyPEM.utf8).write(to: key)
            var configuration = try gateway.configuration()
            configuration.authentication = .certificate(
                try .pem(certificatePath: certificate.path, keyPath: key.path))
            let retries = RetryRecorder()
            configuration.observer = retries
            let client = try APNSPushClient(configuration: configuration)
            guard case .rejected(let rejection) = try await client.send(gateway.notification()) else {
                Issue.record("expected a rejection")
                return
            }
            #expect(rejection.status == 403)
            #expect(rejection.reason == .badCertificateEnvironment)
            #expect(retries.count == 0)
            await client.shutdown()
        }
    }
}

@Suite("APNSClient's order on the wire", .startsServers)
struct ClientStreamOrderTests {
    @Test("one connection ends its requests in the order it was given them, so the server sees and answers them so")
    func requestsLeaveInOrder() async throws {
        let server = try await StreamOrderServer.start()
        var configuration = APNSPushClient.Configuration(
            endpoint: try APNSEndpoint(
                url: "https://127.0.0.1:\(server.port)", additionalTrustRootsPEM: server.caCertificatePEM),
            authentication: .token(
                try APNSProviderTokenSigner(
                    privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, keyID: "ABC123DEFG",
                    teamID: "DEF123GHIJ")))
        configuration.maximumConnections = 1
        let client = try APNSPushClient(configuration: configuration)
        let results = ResultCollector()
        let notification = APNSNotification(
            deviceToken: String(repeating: "ab", count: 32), headers: APNSRequestHeaders(topic: "com.example.app"),
            payload: ByteBuffer(string: #"{"aps":{"alert":"Hello"}}"#))
        try await client.send(contentsOf: Array(repeating: notification, count: 1000)) { _ = results.add($0) }
        await client.shutdown()
        try await server.stop()
        #expect(results.acceptedCount == 1000)
        let ends = server.requestEnds
        #expect(ends.count == 1000)
        let overtaken = zip(ends, ends.dropFirst()).filter { $0 > $1 }.count
        #expect(overtaken == 0, "requests ended out of order, the first: \(ends.prefix(20))")
    }
}
