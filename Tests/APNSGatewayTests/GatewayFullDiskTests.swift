import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@Suite(
    "A gateway on a full disk", .startsServers,
    .enabled(if: SmallDisk.isAvailable, "mounts a small tmpfs, which needs root"))
struct GatewayFullDiskTests {
    @Test(
        "a push is answered 200 only once it is in the journal, else 503; after a kill and a restart every push answered 200 is there and no token is forgotten"
    )
    func fullDisk() async throws {
        try await SmallDisk.with(kilobytes: 1024) { disk in
            let directory = disk.url.appendingPathComponent("gateway")
            let gateway = try await GatewayHarness.start(directory: directory)
            var killed: URL?
            var lastAccepted: [APNSDeviceToken: String] = [:]
            var devices: [APNSDeviceToken] = []
            try await gateway.base.run {
                devices = try (0..<10).map { _ in
                    try gateway.server.registry.register(bundleID: "com.example.app", environment: .development).token
                }
                try disk.fill(leaving: 16 << 10)
                let filler = String(repeating: "x", count: 2000)
                var unavailable = 0
                for round in 0..<12 {
                    for token in devices {
                        let reply = try await gateway.push(token, body: #"{"aps":{"alert":"\#(round) \#(filler)"}}"#)
                        switch reply.status {
                        case 200: lastAccepted[token] = reply.headers["apns-id"]
                        case 503:
                            unavailable += 1
                            #expect(reply.body == #"{"reason":"ServiceUnavailable"}"#)
                        default: Issue.record("a push got \(reply.status) \(reply.body)")
                        }
                    }
                }
                #expect(unavailable > 0, "the disk never filled")
                #expect(!lastAccepted.isEmpty, "nothing fit on the disk")
                // New tokens: each is handed out only if its record is written; once none fits, 503 and no token.
                try disk.fill(leaving: 0)
                var refused = 0
                for _ in 0..<100 where refused == 0 {
                    let before = gateway.server.registry.all.count
                    let made = try await gateway.admin("POST", "/admin/devices", body: #"{"topic":"com.example.app"}"#)
                    if made.status == 201 {
                        devices.append(try APNSDeviceToken(hex: made.json["token"]?.string ?? ""))
                    } else {
                        refused += 1
                        #expect(made.status == 503)
                        #expect(made.json["error"]?.string?.contains("journal") == true)
                        #expect(gateway.server.registry.all.count == before, "a token that was not kept exists")
                    }
                }
                #expect(refused == 1, "the disk never refused a token")
                // kill -9: what is on disk now is all a restart gets.
                killed = try SmallDisk.copy(directory)
            }
            let restarted = try await GatewayHarness.start(directory: try #require(killed), key: gateway.key)
            try await restarted.base.run {
                for token in devices {
                    #expect(restarted.server.registry.device(for: token) != nil, "a token was forgotten")
                    let stored = restarted.server.store.storedNotification(for: token)?.apnsID.lowercasedString
                    #expect(stored == lastAccepted[token]?.lowercased(), "a push answered 200 was lost")
                }
                // The devices still get pushes: nothing was deactivated.
                let again = try await restarted.push(devices[0])
                #expect(again.status == 200)
            }
        }
    }
}
