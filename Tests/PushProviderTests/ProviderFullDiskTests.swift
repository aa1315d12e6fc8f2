import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@Suite(
    "The provider on a full disk", .startsServers,
    .enabled(if: SmallDisk.isAvailable, "mounts a small tmpfs, which needs root"),
    .enabled(
        if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] == nil, "SQLite's disk; PostgreSQL has its own")
)
struct ProviderFullDiskTests {
    @Test(
        "SQLite that cannot write answers 503 with a message that keeps the database's error to the log, reads go on, and once there is room writes work again"
    )
    func sqliteFull() async throws {
        try await SmallDisk.with(kilobytes: 4096) { disk in
            try await ProviderHarness.with(dataDirectory: disk.url.appendingPathComponent("provider")) { harness in
                let token = try harness.gatewayToken()
                try disk.fill(leaving: 0)
                var refused: (Int, JSON)?
                // The WAL has some room left in its pages: write until a write is refused.
                for index in 0..<2000 {
                    let answer = try await harness.call(
                        "POST", "/v1/devices",
                        body: ["token": String(format: "%064x", index), "tags": [String(repeating: "t", count: 120)]])
                    if answer.0 != 200 && answer.0 != 201 {
                        refused = answer
                        break
                    }
                }
                let (status, answer) = try #require(refused, "the disk never filled")
                #expect(status == 503, "\(answer)")
                #expect(answer["error"]["code"].string == "storage")
                let message = try #require(answer["error"]["message"].string)
                #expect(message.contains("try again"), "\(message)")
                // SQLite's own text ("database or disk is full", the file's path) is the operator's, not the caller's.
                for secret in ["SQLite", "disk", disk.url.path, "provider.sqlite"] {
                    #expect(!message.contains(secret), "\(message)")
                }
                // Reads still work, and after room is made writes do too.
                #expect(try await harness.call("GET", "/v1/notifications").0 == 200)
                try disk.release()
                let (created, _) = try await harness.call(
                    "POST", "/v1/notifications", body: ["target": ["token": token], "content": ["body": "x"]])
                #expect(created == 202)
            }
        }
    }
}
