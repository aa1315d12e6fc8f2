import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

/// Numbers at and past the edges of their types, in every place the gateway reads one from outside: each gets the
/// answer APNs would give, and the gateway keeps running (a Swift trap would end the process and every test after).
@Suite("Extreme numbers on the gateway", .startsServers)
struct ExtremeNumberTests {
    @Test(
        "apns-expiration at 2^63-1 is accepted and stored for at most 30 days; past 64 bits it is BadExpirationDate",
        arguments: [
            ("9223372036854775807", 200), ("9223372036854775296", 200), ("253402300800", 200),
            ("9223372036854775808", 400), ("99999999999999999999999", 400), ("-1", 400), ("1e30", 400), ("0", 200),
        ])
    func expiration(header: String, status: Int) async throws {
        try await GatewayHarness.with { gateway, device in
            let reply = try await gateway.push(device.token, headers: ["apns-expiration": header])
            #expect(reply.status == status, "\(header): \(reply.body)")
            if status == 400 { #expect(reply.body == #"{"reason":"BadExpirationDate"}"#) }
            if status == 200, header != "0" {
                let stored = try #require(gateway.server.store.storedNotification(for: device.token))
                #expect(stored.deadline <= Date().addingTimeInterval(31 * 86_400))
            }
            // Still alive, and the log of that push reads back.
            let log = try await gateway.admin("GET", "/admin/deliveries?limit=10")
            #expect(log.status == 200)
        }
    }

    @Test(
        "a provider token whose iat is far outside the hour is refused, not a crash",
        arguments: [
            ("1e30", "InvalidProviderToken"), ("-1e30", "ExpiredProviderToken"),
            ("9223372036854775807", "InvalidProviderToken"), ("-9223372036854775808", "ExpiredProviderToken"),
            ("1.7976931348623157e308", "InvalidProviderToken"), ("0", "ExpiredProviderToken"),
        ])
    func issuedAt(iat: String, reason: String) async throws {
        try await GatewayHarness.with { gateway, device in
            let reply = try await gateway.curl(
                path: "/3/device/\(device.token.hex)",
                headers: [
                    "authorization": try HandMadeJWT.authorization(key: gateway.key, iat: iat),
                    "apns-topic": "com.example.app",
                ],
                body: #"{"aps":{"alert":"Hi"}}"#)
            #expect(reply.status == 403, "iat \(iat): \(reply.body)")
            #expect(reply.body == #"{"reason":"\#(reason)"}"#)
            #expect(try await gateway.push(device.token).status == 200)
        }
    }

    @Test(
        "the admin delivery log's after and limit take any number: out of range is 400, Int.max is an empty page",
        arguments: [
            ("after=9223372036854775807", 200), ("after=9223372036854775806", 200),
            ("after=-9223372036854775808", 400), ("after=99999999999999999999", 400),
            ("limit=9223372036854775807", 400),
            ("limit=0", 400), ("after=1e30", 400),
        ])
    func deliveryLogQuery(query: String, status: Int) async throws {
        try await GatewayHarness.with { gateway, device in
            #expect(try await gateway.push(device.token).status == 200)
            let page = try await gateway.admin("GET", "/admin/deliveries?\(query)")
            #expect(page.status == status, "\(query): \(page.json)")
            if status == 200 { #expect(page.json["entries"]?.array?.isEmpty == true) }
            #expect(try await gateway.push(device.token).status == 200)
        }
    }

    @Test("faults armed for 2^63-1 pushes, twice: the pending count says Int.max, no overflow; pushes are faulted")
    func faultCounts() async throws {
        try await GatewayHarness.with { gateway, device in
            let body = #"{"status": 500, "reason": "InternalServerError", "count": 9223372036854775807}"#
            #expect(try await gateway.admin("POST", "/admin/faults", body: body).status == 201)
            let second = try await gateway.admin("POST", "/admin/faults", body: body)
            #expect(second.status == 201)
            #expect(second.json["pending"]?.number?.intValue == Int.max, "\(second.json)")
            #expect(try await gateway.push(device.token).status == 500)
            let huge = try await gateway.admin(
                "POST", "/admin/faults",
                body: body.replacingOccurrences(
                    of: "9223372036854775807", with: "1e30"))
            #expect(huge.status == 400, "1e30 is no count: \(huge.json)")
        }
    }
}
