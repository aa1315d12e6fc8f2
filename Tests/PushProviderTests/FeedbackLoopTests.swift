import APNSClient
import APNSCore
import APNSGateway
import DeviceSimulator
import Foundation
import GatewayTestSupport
import HeraldSupport
import HeraldTesting
import Logging
import NIOCore
import ProviderStorage
import Synchronization
import TestPacing
import Testing

@testable import PushProvider

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("The loop: device registers, provider sends, the user answers, the app's server hears it", .startsServers)
struct FeedbackLoopTests {
    static let manifest = """
        {
          "bundleID": "com.example.app",
          "authorization": {"granted": true, "options": ["alert", "badge", "sound"]},
          "foreground": false,
          "NotificationConfig": {
            "UNNotificationCategory": {
              "chat": {"identifier": "chat", "actions": ["like", "comment"], "options": 0}
            },
            "UNNotificationAction": {
              "like": {"identifier": "like", "title": "Like", "options": 0},
              "comment": {"identifier": "comment", "title": "Comment", "options": 0,
                          "textInputButtonTitle": "Send", "textInputPlaceholder": "Say something"}
            }
          },
          "serviceExtension": [{"decrypt": "e2e"}]
        }
        """

    /// A simulated device with the app of ``manifest``, registering with and reporting to the harness's provider.
    static func device(registeredWith harness: ProviderHarness) async throws -> SimulatedDevice {
        var configuration = SimulatedDevice.Configuration(
            gatewayHost: "127.0.0.1", gatewayPort: harness.gateway.port,
            caPEM: harness.gateway.server.certificateAuthority.caCertificatePEM,
            apps: [try AppManifest(data: Data(manifest.utf8))],
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("device-\(UUID())"))
        configuration.registerURL = URL(string: "\(harness.baseURL)/v1/devices?key=\(harness.publishableKey)")
        configuration.reportURL = URL(string: "\(harness.baseURL)/v1/feedback?key=\(harness.publishableKey)")
        return try await SimulatedDevice.start(configuration)
    }

    @Test("registration, encrypted delivery, action with a text reply, statistics and the webhook")
    func wholeLoop() async throws {
        try await PostRecorder.running(paths: ["hook"]) { hook in
            try await ProviderHarness.with { harness in
                let (patched, _) = try await harness.call(
                    "PATCH", "/v1/apps/\(harness.appID)", body: ["webhookURL": hook.url("hook").absoluteString])
                #expect(patched == 200)
                let device = try await Self.device(registeredWith: harness)
                defer { Task { await device.stop() } }
                let shows = DeviceEventLog(device)
                let token = try #require(device.installedApps.first?.token)
                try await harness.until("the device's registration") {
                    try await harness.call("GET", "/v1/devices/\(token)").1["publicKey"].string != nil
                }
                let (status, created) = try await harness.call(
                    "POST", "/v1/notifications",
                    body: [
                        "target": ["all": true],
                        "content": ["title": "New message", "category": "chat"],
                        "encrypted": ["title": "Alice", "body": "the meeting moved to 3 pm"],
                    ])
                #expect(status == 202)
                let id = try #require(created["id"].string)
                _ = try await shows.next(.displayed)
                let shown = try #require(await device.notifications().first)
                #expect(shown.title == "Alice")
                #expect(shown.body == "the meeting moved to 3 pm")
                let trace = try await harness.call("GET", "/v1/deliveries/\(try #require(shown.apnsID))").1
                #expect(trace["notificationID"].string == id)
                _ = try await device.respond(to: shown.id, action: "comment", text: "see you there")
                try await harness.until("the reply in the statistics") {
                    let stats = try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]
                    return stats["actions"]["comment"].int == 1 && stats["delivered"].int == 1
                        && stats["opened"].int == 0
                        && stats["displayed"].int == 1 && stats["replies"].int == 1
                }
                let (listed, responses) = try await harness.call("GET", "/v1/notifications/\(id)/responses")
                #expect(listed == 200)
                #expect(responses.array.count == 1)
                #expect(responses.array.first?["event"].string == "action")
                #expect(responses.array.first?["action"].string == "comment")
                #expect(responses.array.first?["text"].string == "see you there")
                #expect(responses.array.first?["token"].string == token)
                let cursor = try #require(responses.array.first?["id"].int)
                #expect(
                    try await harness.call("GET", "/v1/notifications/\(id)/responses?after=\(cursor)").1.array.isEmpty)
                #expect(try await harness.call("GET", "/v1/notifications/\(id)/responses?after=x").0 == 400)
                let call = JSON(try await hook.first("hook"))
                #expect(call["event"].string == "action")
                #expect(call["action"].string == "comment")
                #expect(call["text"].string == "see you there")
                #expect(call["token"].string == token)
                #expect(call["notificationID"].string == id)
            }
        }
    }

    @Test("a push sent straight to APNs is not reported to the provider, and the device logs nothing about it")
    func directPushIsQuiet() async throws {
        try await ProviderHarness.with { harness in
            let device = try await Self.device(registeredWith: harness)
            defer { Task { await device.stop() } }
            let logs = Mutex<[String]>([])
            let watching = Task {
                for await event in device.events() where event.kind == .log {
                    logs.withLock { $0.append(event.message ?? "") }
                }
            }
            defer { watching.cancel() }
            let shows = DeviceEventLog(device)
            let token = try #require(device.installedApps.first?.token)
            try await harness.until("the device's registration") {
                try await harness.call("GET", "/v1/devices/\(token)").0 == 200
            }
            let client = try APNSPushClient(
                configuration: .init(
                    endpoint: try APNSEndpoint(
                        url: "https://127.0.0.1:\(harness.gateway.port)",
                        additionalTrustRootsPEM: harness.gateway.server.certificateAuthority.caCertificatePEM),
                    authentication: .token(harness.gateway.signer)))
            let direct = try await client.send(
                APNSNotification(
                    deviceToken: token, headers: .init(pushType: .alert, topic: ProviderHarness.bundleID),
                    payload: ByteBuffer(string: #"{"aps":{"alert":"straight to APNs"}}"#)))
            await client.shutdown()
            guard case .accepted = direct else { Issue.record("the direct push: \(direct)"); return }
            _ = try await shows.next(.displayed)
            let shown = try #require(await device.notifications().first)
            _ = try await device.respond(to: shown.id, action: "default")
            // Reports go one at a time, in order: once the provider's own push is counted, the direct push's
            // delivery, display and response have been reported before it.
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["title": "through"]])
            #expect(status == 202)
            let id = try #require(created["id"].string)
            try await harness.until("the provider's push counted") {
                try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]["delivered"].int == 1
            }
            #expect(logs.withLock { $0 }.isEmpty, "\(logs.withLock { $0 })")
        }
    }

    @Test("categories: edited through the API, served in NotificationConfig form with an ETag")
    func categories() async throws {
        try await ProviderHarness.with { harness in
            let config = """
                {"NotificationConfig": {
                  "UNNotificationCategory": {"see": {"identifier": "see", "actions": ["love"], "options": 0}},
                  "UNNotificationAction": {"love": {"identifier": "love", "title": "I love it~", "options": 7}}
                }}
                """
            let (status, saved) = try await harness.call(
                "PUT", "/v1/apps/\(harness.appID)/categories", body: Data(config.utf8))
            #expect(status == 200)
            #expect(saved["NotificationConfig"]["UNNotificationAction"]["love"]["options"].int == 7)
            var request = URLRequest(url: URL(string: "\(harness.baseURL)/v1/categories")!)
            request.setValue("Bearer \(harness.publishableKey)", forHTTPHeaderField: "Authorization")
            let (_, first) = try await URLSession.shared.data(for: request)
            let etag = try #require((first as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag"))
            request.setValue(etag, forHTTPHeaderField: "If-None-Match")
            let (_, second) = try await URLSession.shared.data(for: request)
            #expect((second as? HTTPURLResponse)?.statusCode == 304)
            // If-None-Match as RFC 9110 reads it: weak comparison, a list, or `*`.
            for header in ["W/\(etag)", "\"other\", \(etag)", "*"] {
                request.setValue(header, forHTTPHeaderField: "If-None-Match")
                let (_, answer) = try await URLSession.shared.data(for: request)
                #expect((answer as? HTTPURLResponse)?.statusCode == 304, "If-None-Match: \(header)")
            }
            request.setValue("\"other\"", forHTTPHeaderField: "If-None-Match")
            #expect((try await URLSession.shared.data(for: request).1 as? HTTPURLResponse)?.statusCode == 200)
            // An identifier with a character that does not show is refused, naming where it is.
            let hidden =
                #"{"UNNotificationAction": {"lo\u200Bve": {"identifier": "love", "title": "x", "options": 0}}}"#
            let (hiddenStatus, refused) = try await harness.call(
                "PUT", "/v1/apps/\(harness.appID)/categories", body: Data(hidden.utf8))
            #expect(hiddenStatus == 400, "\(refused)")
            #expect(refused["error"]["message"].string?.contains("U+200B") == true, "\(refused)")
            let broken = #"{"UNNotificationCategory": {"x": {"identifier": "x", "actions": ["missing"]}}}"#
            let (badStatus, bad) = try await harness.call(
                "PUT", "/v1/apps/\(harness.appID)/categories", body: Data(broken.utf8))
            #expect(badStatus == 400)
            #expect(bad["error"]["message"].string?.contains("missing") == true)
        }
    }

    @Test("a webhook connects to the address its name was checked at, not to a second lookup (DNS rebinding)")
    func webhookPinned() async throws {
        try await PostRecorder.running(paths: ["hook"]) { hook in
            let lookups = Mutex(0)
            // `hooks.example` exists only in this resolver: the POST arrives only if it goes to the address checked.
            let policy = OutboundPolicy(allowedHosts: ["127.0.0.1"], allowOption: "--allow-webhook-host") { host in
                lookups.withLock { $0 += 1 }
                return host == "hooks.example" ? [IPAddress("127.0.0.1")!] : []
            }
            let outbox = MemoryOutbox(url: "http://hooks.example:\(hook.port)/hook", body: #"{"notificationID":"n1"}"#)
            let sender = WebhookSender(
                store: outbox, secrets: try SecretBox(masterKey: Data(repeating: 7, count: 32)),
                failures: FailureReporter(logger: Logger(label: "test"), metrics: ProviderMetrics()), policy: policy,
                metrics: ProviderMetrics(), signal: WorkSignal(), changes: WorkSignal())
            #expect(await sender.sendDue() == 1)
            #expect(JSON(try await hook.first("hook"))["notificationID"].string == "n1")
            #expect(lookups.withLock { $0 } == 1)
        }
    }
}

/// An outbox of one event in memory, for the sender tested alone: what it was told about the event.
final class MemoryOutbox: WebhookOutbox {
    private let state: Mutex<(events: [OutboxEvent], sent: [Int64], failed: [String], secrets: [StoredWebhookSecret])>

    init(url: String, body: String) {
        let event = OutboxEvent(
            id: 1, appID: "app", eventID: "msg_1", url: url, body: Data(body.utf8), state: .pending, attempts: 0,
            createdAt: Date(), nextAttemptAt: Date(), lastError: nil)
        state = Mutex(([event], [], [], []))
    }

    var sent: [Int64] { state.withLock { $0.sent } }
    var failed: [String] { state.withLock { $0.failed } }

    func leaseWebhooks(owner: String, limit: Int, now: Date, leaseFor: TimeInterval, skipping: Set<String>)
        async throws(ProviderError) -> [OutboxEvent]
    {
        state.withLock { state in
            defer { state.events = [] }
            return state.events
        }
    }
    func webhookSent(ids: [Int64]) async throws(ProviderError) { state.withLock { $0.sent += ids } }
    func webhookFailed(id: Int64, error: String, retryAt: Date?, at: Date) async throws(ProviderError) {
        state.withLock { $0.failed.append(error) }
    }
    func releaseWebhooks(ids: [Int64], dueAt: Date) async throws(ProviderError) {}
    func webhookEvents(appID: String, state: OutboxEvent.State, after: Int64, limit: Int) async throws(ProviderError)
        -> [OutboxEvent]
    { [] }
    func retryDeadWebhooks(appID: String, at: Date) async throws(ProviderError) -> Int { 0 }
    func webhookCounts() async throws(ProviderError) -> (pending: Int, dead: Int, oldestPending: Date?) { (0, 0, nil) }
    func addWebhookSecret(appID: String, sealed: String, at: Date) async throws(ProviderError) {
        state.withLock { $0.secrets.insert(StoredWebhookSecret(sealed: sealed, createdAt: at), at: 0) }
    }
    func webhookSecrets(appID: String) async throws(ProviderError) -> [StoredWebhookSecret] {
        state.withLock { $0.secrets }
    }
}
