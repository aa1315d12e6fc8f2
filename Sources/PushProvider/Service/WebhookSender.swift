import APNSCore
import AsyncHTTPClient
import Foundation
import HeraldSupport
import HeraldTime
import Logging
import NIOCore
import NIOHTTP1

/// POSTs every user response to the app's own server (the reply loop), retrying a failed POST three times, 1 and 2
/// seconds apart on the provider's clock.
/// Before the POSTs the URL's host is looked up and checked against ``policy`` (public addresses only, unless allowed),
/// and they connect to the address checked, so a name that later points inside the provider's network is not followed.
struct WebhookSender: Sendable {
    let failures: FailureReporter
    let policy: OutboundPolicy
    /// What the waits between attempts are measured on.
    var clock: any WallClock = SystemWallClock()

    /// The webhook body: `event`, `notificationID`, `deliveryID`, `apnsID`, `token`, `userID`, `action`, `text`,
    /// `time`.
    struct Body: Encodable {
        var event: String
        var notificationID: String
        var deliveryID: Int64
        var apnsID: String
        var token: String
        var userID: String?
        var action: String?
        var text: String?
        var time: String
    }

    /// Sends in the background; failures are logged.
    func send(_ body: Body, to url: URL) {
        let (failures, policy, clock) = (failures, policy, clock)
        Task.detached {
            let target: OutboundTarget
            do throws(OutboundRefusal) {
                target = try await policy.target(for: url)
            } catch {
                failures.report(.webhook, "webhook refused", metadata: ["url": "\(url)", "why": "\(error.message)"])
                return
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: (try? encoder.encode(body)) ?? Data()))
            if await Self.post(request, to: target, clock: clock) { return }
            failures.report(
                .webhook, "webhook did not answer 2xx after 3 attempts; the response is dropped",
                metadata: ["url": "\(url)", "event": "\(body.event)", "apns-id": "\(body.apnsID)"])
        }
    }

    /// POSTs `request` up to three times, connecting only to the address the policy checked and following no
    /// redirect (the URL checked is the URL called); whether one attempt answered 2xx.
    private static func post(_ request: HTTPClientRequest, to target: OutboundTarget, clock: any WallClock) async
        -> Bool
    {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(30)))
        configuration.dnsOverride = target.dnsOverride
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { Task { try? await client.shutdown() } }
        for attempt in 1...3 {
            if let response = try? await client.execute(request, timeout: .seconds(30)) {
                _ = try? await response.body.collect(upTo: 1 << 16)
                if (200..<300).contains(response.status.code) { return true }
            }
            if attempt < 3 { try? await clock.sleep(for: .seconds(attempt)) }
        }
        return false
    }
}
