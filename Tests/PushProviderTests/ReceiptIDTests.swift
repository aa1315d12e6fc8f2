import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import NIOCore
import TestPacing
import Testing

@testable import PushProvider

/// iOS hands an app neither the `apns-id` header nor, with a collapse ID, an identifier made from it: the provider
/// puts each delivery's `apns-id` in its payload (`herald-id`), which HeraldKit reports against.
@Suite("The apns-id in the payload", .startsServers)
struct ReceiptIDTests {
    @Test("each delivery's payload carries its own apns-id, and a payload that would pass 4 KB with it goes without")
    func payloadCarriesTheID() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["token": token], "content": ["title": "Hi"], "collapseID": "score"])
            _ = try await harness.finished(try #require(created["id"].string))
            let stored = try #require(
                harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)))
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(stored.payload)) as? [String: Any])
            let receiptID = try #require(payload[PreparedBatch.receiptIDKey] as? String)
            #expect(receiptID.lowercased() == stored.apnsID.uuidString.lowercased())
            #expect((payload["aps"] as? [String: Any])?["alert"] != nil)

            let big = String(repeating: "x", count: 4096 - 60)
            let (status, full) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["token": token], "payload": ["aps": ["alert": big]]])
            #expect(status == 202, "\(full)")
            let report = try await harness.finished(try #require(full["id"].string))
            #expect(report["stats"]["accepted"].int == 1)
            let second = try #require(
                harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)))
            let bigPayload = try #require(
                try JSONSerialization.jsonObject(with: Data(second.payload)) as? [String: Any])
            #expect(bigPayload[PreparedBatch.receiptIDKey] == nil)
        }
    }

    @Test("a payload with its own herald-id keeps it, and gets no second one (no duplicate key)")
    func sendersOwnKey() async throws {
        try await ProviderHarness.with { harness in
            let token = try harness.gatewayToken()
            let (status, created) = try await harness.call(
                "POST", "/v1/notifications",
                body: ["target": ["token": token], "payload": ["aps": ["alert": "hi"], "herald-id": "mine"]])
            #expect(status == 202, "\(created)")
            _ = try await harness.finished(try #require(created["id"].string))
            let stored = try #require(
                harness.gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)))
            let text = String(decoding: stored.payload, as: UTF8.self)
            #expect(text.components(separatedBy: "\"herald-id\"").count == 2, "\(text)")
            #expect(text.contains("\"mine\""))
        }
    }

    @Test(
        "the key goes first in any object the provider wrote, empty or spaced", arguments: ["{}", "{ }", #"{"a":1}"#])
    func insertion(body: String) throws {
        let out = PreparedBatch.body(ByteBuffer(string: body), receiptID: "ID")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.readableBytesView)) as? [String: Any])
        #expect(object["herald-id"] as? String == "ID")
        #expect(object.count == (body.contains("a") ? 2 : 1))
    }
}
