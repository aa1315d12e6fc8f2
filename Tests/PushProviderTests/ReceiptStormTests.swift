import Foundation
import TestPacing
import Testing

/// Receipts that arrive together are written together (group commit), and still record each fact once.
@Suite("A receipt storm: many devices reporting at once", .startsServers)
struct ReceiptStormTests {
    @Test("receipts sent at once share transactions, and every count is exact: none lost, none doubled")
    func groupCommit() async throws {
        try await ProviderHarness.with { harness in
            let devices = 60
            for _ in 0..<devices {
                #expect(try await harness.call("POST", "/v1/devices", body: ["token": harness.gatewayToken()]).0 == 201)
            }
            let (_, created) = try await harness.call(
                "POST", "/v1/notifications", body: ["target": ["all": true], "content": ["body": "storm"]])
            let id = try #require(created["id"].string)
            _ = try await harness.finished(id)
            let deliveries = try await harness.call("GET", "/v1/notifications/\(id)/deliveries?limit=500").1.array
            try #require(deliveries.count == devices)
            // Each device reports delivered, displayed, delivered again (it did not hear the first answer) and one
            // action, all at once with every other device.
            let events: [[String: String]] = [
                ["event": "delivered"], ["event": "displayed"], ["event": "delivered"],
                ["event": "action", "action": "like"],
            ]
            let statuses = try await withThrowingTaskGroup(of: (Int, JSON).self) { group in
                for delivery in deliveries {
                    let apnsID = try #require(delivery["apnsID"].string)
                    let token = try #require(delivery["token"].string)
                    for event in events {
                        group.addTask {
                            try await harness.call(
                                "POST", "/v1/feedback", key: harness.publishableKey,
                                body: event.merging(["apnsID": apnsID, "token": token]) { first, _ in first })
                        }
                    }
                }
                return try await group.reduce(into: [Int: Int]()) { counts, answer in
                    counts[answer.0, default: 0] += 1
                }
            }
            #expect(statuses == [202: devices * events.count], "\(statuses)")
            let stats = try await harness.call("GET", "/v1/notifications/\(id)").1["stats"]
            #expect(stats["delivered"].int == devices && stats["displayed"].int == devices, "\(stats)")
            #expect(stats["actions"]["like"].int == devices, "\(stats)")
            let apnsID = try #require(deliveries[7]["apnsID"].string)
            let reports = try await harness.call("GET", "/v1/deliveries/\(apnsID)").1["reports"].array
            #expect(reports.count == 3, "delivered, displayed and the action, each once: \(reports)")
            // Fewer transactions than receipts: receipts that came together were written together.
            let metrics = try await harness.metrics()
            let line = try #require(
                metrics.split(separator: "\n").first {
                    $0.hasPrefix(
                        #"herald_provider_database_statement_duration_seconds_count{operation="recordFeedback"}"#)
                })
            let transactions = try #require(Int(line.split(separator: " ").last ?? ""))
            #expect(transactions < devices * events.count, "\(transactions) transactions for \(devices * events.count)")
        }
    }
}
