import APNSCore
import APNSGateway
import Courier
import Crypto
import Foundation
import GatewayTestSupport
import HeraldTime
import Logging
import NIOCore
import Synchronization
import TestPacing
import Testing

@Suite("How many tokens one address may create", .startsServers)
struct TokenCreationLimitTests {
    @Test("one address may create only so many tokens a minute, on the courier and the admin API together")
    func tokenCreationLimit() async throws {
        // The limit's clock stands still, so a slow run cannot refill the bucket.
        let frozen = Date()
        let gateway = try await GatewayHarness.start {
            $0.tokenCreationsPerMinute = 4
            $0.clock = ManualClock(start: frozen)
        }
        try await gateway.base.run {
            #expect(
                try await gateway.admin("POST", "/admin/devices", body: #"{"topic":"com.example.app","count":3}"#)
                    .status == 201)
            let device = try await gateway.courier()
            let kept = try await device.register(bundleID: "com.example.app", environment: .development)
            let refused = await #expect(throws: GatewayDataError.self) {
                _ = try await device.register(bundleID: "com.example.app", environment: .development)
            }
            #expect(refused?.message.contains("--token-creation-limit") == true)
            #expect(refused?.message.contains("try again in") == true)
            // A device keeping its own valid token creates nothing, so it is not counted.
            let again = try await device.register(
                bundleID: "com.example.app", environment: .development, token: kept.token, secret: kept.secret)
            #expect(again.token == kept.token)
            await device.close()

            let admin = try await gateway.admin("POST", "/admin/devices", body: #"{"topic":"com.example.app"}"#)
            #expect(admin.status == 429)
            #expect(admin.json["error"]?.string?.contains("4 device tokens a minute") == true)
            let tooMany = try await gateway.admin(
                "POST", "/admin/devices", body: #"{"topic":"com.example.app","count":5}"#, http1: true)
            #expect(tooMany.status == 429)
            #expect(tooMany.json["error"]?.string?.contains("ask for fewer") == true)
            #expect(gateway.server.refusals.count(.tokenCreationLimit) == 3)
            #expect(gateway.server.registry.all.count == 4)
        }
    }

    @Test("the token creation limit refills with time and forgets no address it still limits")
    func tokenCreationRefill() throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 0))
        let limit = TokenCreationLimit(perMinute: 60, clock: clock)
        let source = try SocketAddress(ipAddress: "192.0.2.7", port: 40_000)
        let other = try SocketAddress(ipAddress: "192.0.2.8", port: 40_000)
        #expect(limit.take(60, from: source) == nil)
        #expect(limit.take(1, from: source)?.contains("try again in 1 s") == true)
        #expect(limit.take(1, from: other) == nil)
        clock.advance(by: .seconds(10))
        #expect(limit.take(10, from: source) == nil)
        #expect(limit.take(1, from: source) != nil)
        #expect(limit.take(61, from: other)?.contains("ask for fewer") == true)
    }

    @Test("the token creation limit tracks a bounded number of addresses, however many a client uses")
    func tokenCreationMemory() throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 0))
        let limit = TokenCreationLimit(perMinute: 60, clock: clock)
        for index in 0..<(TokenCreationLimit.trackedAddresses + 50) {
            clock.advance(by: .seconds(0.001))
            let address = try SocketAddress(ipAddress: "2001:db8::\(String(index, radix: 16))", port: 1)
            #expect(limit.take(1, from: address) == nil)
        }
        #expect(limit.trackedCount <= TokenCreationLimit.trackedAddresses)
    }
}
