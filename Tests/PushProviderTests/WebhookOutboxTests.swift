import Crypto
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@testable import PushProvider

@Suite("Webhooks: a durable outbox, signed as the Standard Webhooks specification says", .startsServers)
struct WebhookOutboxTests {
    /// Whether `headers` carry a signature of `body` by `secret` (`whsec_…`), computed here as a receiver would.
    static func signed(_ headers: [String: String], _ body: Data, by secret: String) -> Bool {
        guard let id = headers["webhook-id"], let timestamp = headers["webhook-timestamp"],
            let signatures = headers["webhook-signature"],
            let key = Data(base64Encoded: String(secret.dropFirst("whsec_".count)))
        else { return false }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(id).\(timestamp).".utf8) + body, using: SymmetricKey(data: key))
        return signatures.split(separator: " ").contains { $0 == "v1," + Data(mac).base64EncodedString() }
    }

    /// A response to a new notification of the harness's app, reported with the publishable key.
    static func respond(_ harness: ProviderHarness, action: String) async throws {
        let (_, apnsID, token) = try await harness.sentToOneDevice()
        let (status, answer) = try await harness.call(
            "POST", "/v1/feedback", key: harness.publishableKey,
            body: ["event": "action", "action": action, "apnsID": apnsID, "token": token])
        #expect(status == 202, "\(answer)")
    }

    @Test("the specification's test vector: secret, id, timestamp and body give its signature")
    func testVector() {
        let header = WebhookSignature.header(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8),
            secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(
            WebhookSignature.verify(
                header: "v1,bm9wZQ== " + header, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
                body: Data(#"{"test": 2432232314}"#.utf8), secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        #expect(WebhookSignature.key(of: "whsec_") == nil && WebhookSignature.key(of: "sk_abc") == nil)
    }

    @Test(
        "each POST carries webhook-id, webhook-timestamp and a signature by the app's secret; a rotation signs with both"
    )
    func signedAndRotated() async throws {
        try await PostRecorder.running(paths: ["hook"]) { hook in
            try await ProviderHarness.with { harness in
                _ = try await harness.call(
                    "PATCH", "/v1/apps/\(harness.appID)", body: ["webhookURL": hook.url("hook").absoluteString])
                let (status, made) = try await harness.call("POST", "/v1/apps/\(harness.appID)/webhook-secret")
                #expect(status == 201 && made["previousValidUntil"].isNull, "\(made)")
                let first = try #require(made["secret"].string)
                #expect(first.hasPrefix("whsec_"))
                try await Self.respond(harness, action: "like")
                _ = try await hook.first("hook")
                let request = try #require(hook.requests("hook").first)
                #expect(request.headers["webhook-id"]?.hasPrefix("msg_") == true)
                let timestamp = try #require(request.headers["webhook-timestamp"].flatMap { Int($0) })
                #expect(abs(Double(timestamp) - Date().timeIntervalSince1970) < 300)
                #expect(Self.signed(request.headers, request.body, by: first), "\(request.headers)")
                #expect(JSON(try JSONSerialization.jsonObject(with: request.body))["action"].string == "like")

                // A new secret: for a day both sign, so receivers can switch without missing an event.
                let rotated = try await harness.call("POST", "/v1/apps/\(harness.appID)/webhook-secret").1
                let second = try #require(rotated["secret"].string)
                #expect(second != first && rotated["previousValidUntil"].string != nil)
                try await Self.respond(harness, action: "share")
                try await hook.until("the second POST") { hook.requests("hook").count == 2 }
                let next = hook.requests("hook")[1]
                #expect(
                    Self.signed(next.headers, next.body, by: first) && Self.signed(next.headers, next.body, by: second))
                #expect(next.headers["webhook-id"] != request.headers["webhook-id"])
                // Another app's key cannot make one: the route is the app's server's.
                #expect(
                    try await harness.call(
                        "POST", "/v1/apps/\(harness.appID)/webhook-secret", key: harness.publishableKey
                    ).0 == 403)
            }
        }
    }

    @Test(
        "a receiver that fails: events wait and are tried again, dead after the last attempt, listed, retried on demand, each id delivered once"
    )
    func deadLettersAndRetry() async throws {
        try await PostRecorder.running(paths: ["hook"]) { hook in
            try await ProviderHarness.with(configure: { configuration in
                configuration.webhookRetrySchedule = [.milliseconds(100)]
            }) { harness in
                _ = try await harness.call(
                    "PATCH", "/v1/apps/\(harness.appID)", body: ["webhookURL": hook.url("hook").absoluteString])
                hook.answer(with: 503)
                for action in ["a", "b", "c"] { try await Self.respond(harness, action: action) }
                try await harness.until("three dead events") {
                    try await harness.call("GET", "/v1/apps/\(harness.appID)/webhooks?state=dead").1["events"].array
                        .count == 3
                }
                let dead = try await harness.call("GET", "/v1/apps/\(harness.appID)/webhooks?state=dead").1
                for event in dead["events"].array {
                    #expect(event["attempts"].int == 2, "one attempt and one retry: \(event)")
                    #expect(event["lastError"].string?.contains("503") == true)
                    #expect(event["body"]["event"].string == "action")
                }
                #expect(hook.requests("hook").count == 6)
                hook.answer(with: 204)
                let retried = try await harness.call("POST", "/v1/apps/\(harness.appID)/webhooks/retry").1
                #expect(retried["retried"].int == 3)
                try await hook.until("the three delivered") { hook.bodies("hook").count == 3 }
                let ids = hook.requests("hook").compactMap { $0.headers["webhook-id"] }
                #expect(Set(ids).count == 3, "a retry carries the same webhook-id")
                try await harness.until("the outbox empty") {
                    let pending = try await harness.call("GET", "/v1/apps/\(harness.appID)/webhooks").1["events"]
                    let dead = try await harness.call("GET", "/v1/apps/\(harness.appID)/webhooks?state=dead").1
                    return pending.array.isEmpty && dead["events"].array.isEmpty
                }
                #expect(Set(hook.bodies("hook").compactMap { $0["action"] as? String }) == ["a", "b", "c"])
                let (status, answer) = try await harness.call("GET", "/v1/apps/\(harness.appID)/webhooks?state=gone")
                #expect(status == 400 && answer["error"]["field"].string == "state")
            }
        }
    }

    @Test("an event waiting in the outbox survives the provider's restart and is sent by the next one, once")
    func survivesRestart() async throws {
        try await PostRecorder.running(paths: ["hook"]) { hook in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID())")
            hook.answer(with: 503)
            try await ProviderHarness.with(
                dataDirectory: folder,
                configure: { $0.webhookRetrySchedule = Array(repeating: .seconds(1), count: 5) }
            ) { harness in
                _ = try await harness.call(
                    "PATCH", "/v1/apps/\(harness.appID)", body: ["webhookURL": hook.url("hook").absoluteString])
                try await Self.respond(harness, action: "before-restart")
                try await hook.until("the first attempt") { !hook.requests("hook").isEmpty }
            }
            hook.answer(with: 204)
            try await ProviderHarness.with(dataDirectory: folder) { _ in
                try await hook.until("the event after the restart") { hook.bodies("hook").count == 1 }
            }
            await ProviderHarness.dropSchema(of: folder)
            #expect(hook.bodies("hook").first?["action"] as? String == "before-restart")
            #expect(Set(hook.requests("hook").compactMap { $0.headers["webhook-id"] }).count == 1)
        }
    }

    @Test("a receiver that hangs holds only its own events: another endpoint's event is sent while it hangs")
    func noHeadOfLine() async throws {
        try await PostRecorder.running(paths: ["hook"], holding: ["hang"]) { hook in
            try await ProviderHarness.with { harness in
                _ = try await harness.call(
                    "PATCH", "/v1/apps/\(harness.appID)", body: ["webhookURL": hook.url("hang").absoluteString])
                try await Self.respond(harness, action: "held")
                try await hook.until("the hanging receiver's POST") { hook.requests("hang").count == 1 }
                _ = try await harness.call(
                    "PATCH", "/v1/apps/\(harness.appID)", body: ["webhookURL": hook.url("hook").absoluteString])
                try await Self.respond(harness, action: "free")
                #expect(try await hook.first("hook")["action"] as? String == "free")
                // Once the second is sent (its event gone from the outbox), the first's attempt is still running (not
                // timed out, not failed): the second did not wait for it.
                var pending: [JSON] = []
                try await harness.until("the second event marked sent") {
                    pending = try await harness.call("GET", "/v1/apps/\(harness.appID)/webhooks").1["events"].array
                    return pending.count == 1
                }
                #expect(pending.map { $0["attempts"].int } == [0], "\(pending)")
                #expect(pending.first?["body"]["action"].string == "held")
                #expect(hook.requests("hang").count == 1)
                hook.release()
                try await harness.until("the held event sent") {
                    try await harness.call("GET", "/v1/apps/\(harness.appID)/webhooks").1["events"].array.isEmpty
                }
            }
        }
    }

    @Test(
        "an app whose receiver takes batches: its waiting events go several a POST as {\"events\": [...]}, signed, each with its own webhookID"
    )
    func batched() async throws {
        try await PostRecorder.running(paths: [], holding: ["hang"]) { hook in
            try await ProviderHarness.with { harness in
                for bad: Any in [0, 65, 1.5, "3"] {
                    let (status, answer) = try await harness.call(
                        "PATCH", "/v1/apps/\(harness.appID)", body: ["webhookBatch": bad])
                    #expect(status == 400 && answer["error"]["field"].string == "webhookBatch", "\(bad): \(answer)")
                }
                let (status, app) = try await harness.call(
                    "PATCH", "/v1/apps/\(harness.appID)",
                    body: ["webhookURL": hook.url("hang").absoluteString, "webhookBatch": 3])
                #expect(status == 200 && app["webhookBatch"].int == 3, "\(app)")
                let secret = try #require(
                    try await harness.call("POST", "/v1/apps/\(harness.appID)/webhook-secret").1["secret"].string)
                try await Self.respond(harness, action: "a")
                try await hook.until("the first POST, held") { hook.requests("hang").count == 1 }
                // Four more responses wait while the receiver holds the first POST: three and one go after it.
                for action in ["b", "c", "d", "e"] { try await Self.respond(harness, action: action) }
                hook.release()
                try await harness.until("the outbox empty") {
                    try await harness.call("GET", "/v1/apps/\(harness.appID)/webhooks").1["events"].array.isEmpty
                }
                let requests = hook.requests("hang")
                let batches = try requests.map { request in
                    #expect(Self.signed(request.headers, request.body, by: secret), "\(request.headers)")
                    #expect(request.headers["webhook-id"]?.hasPrefix("batch_") == true)
                    return JSON(try JSONSerialization.jsonObject(with: request.body))["events"].array
                }
                // The batches of one turn go at once, over several connections: in any order.
                let actions = batches.map { $0.map { $0["action"].string ?? "?" } }
                #expect(actions.sorted { $0.joined() < $1.joined() } == [["a"], ["b", "c", "d"], ["e"]], "\(actions)")
                let ids = batches.joined().compactMap { $0["webhookID"].string }
                #expect(ids.count == 5 && Set(ids).count == 5 && ids.allSatisfy { $0.hasPrefix("msg_") })
                #expect(batches.joined().allSatisfy { $0["event"].string == "action" && $0["apnsID"].string != nil })
            }
        }
    }
}
