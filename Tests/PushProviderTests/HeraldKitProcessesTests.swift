import Foundation
import GatewayTestSupport
import HeraldKit
import Synchronization
import TestPacing
import Testing

/// HeraldKit in two real processes on one folder, as an app and its service extension share an app group: the
/// other process is `HeraldKitProbe`, built beside the tests.
@Suite("HeraldKit across an app and its extension: two processes, one queue", .startsServers)
struct HeraldKitProcessesTests {
    static let token = String(repeating: "ab", count: 32)

    /// The probe's path: beside the test runner.
    static var probe: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("HeraldKitProbe").path
    }

    static func herald(folder: URL, url: String) throws -> Herald {
        var configuration = HeraldConfiguration(
            providerURL: URL(string: url)!, publishableKey: "pk_test", folder: folder)
        configuration.longestRetryDelay = .seconds(1)
        return try Herald(configuration: configuration)
    }

    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("heraldkit-processes-\(UUID())")
    }

    /// The event and apns-id of each receipt the recorder got, in arrival order.
    static func arrivals(_ recorder: PostRecorder) -> [String] {
        recorder.bodies("v1/feedback").map { "\($0["event"] as? String ?? "?") \($0["apnsID"] as? String ?? "?")" }
    }

    @Test("receipts leave in the order they were queued across processes: the app waits for the extension's older one")
    func orderAcrossProcesses() async throws {
        try await PostRecorder.running(paths: ["v1/feedback"]) { recorder in
            // 20 ms a round trip, so the extension is still sending while the app queues its own.
            let network = try LatencyProxy(targetPort: recorder.port, roundTripMilliseconds: 20)
            defer { network.stop() }
            let url = "http://127.0.0.1:\(network.port)"
            let folder = Self.folder()
            let ids = (1...20).map { "id-\($0)" }
            let extensionProcess = try ChildProcess.start(
                Self.probe, [folder.path, url, "pk_test", Self.token, "delivered"] + ids)
            let app = try Self.herald(folder: folder, url: url)
            // The extension has queued all twenty (it may send its first while it still queues the last: on a loaded
            // machine the app's receipts then come between its own, rightly) and is still sending.
            try #require(
                try await Self.until("the extension queues its receipts") {
                    FileManager.default.fileExists(atPath: folder.path + ".queued")
                })
            _ = try await recorder.first("v1/feedback")
            for id in ids { app.report(Receipt(.displayed, apnsID: id, token: Self.token)) }
            let sent = await app.sendReceipts()
            let probe = await extensionProcess.result()
            #expect(probe.status == 0, "\(String(decoding: probe.output, as: UTF8.self))")
            #expect(sent || app.receiptQueue.waiting == 0)
            #expect(
                Self.arrivals(recorder) == ids.map { "delivered \($0)" } + ids.map { "displayed \($0)" },
                "\(Self.arrivals(recorder))")
        }
    }

    @Test("a receipt claimed by a process that was killed is sent by the other in seconds, not after 120 s")
    func killedClaim() async throws {
        try await PostRecorder.running(paths: ["v1/feedback"]) { recorder in
            // A provider ten minutes away: the extension's POST never ends before it is killed.
            let farAway = try LatencyProxy(targetPort: recorder.port, roundTripMilliseconds: 600_000)
            defer { farAway.stop() }
            let folder = Self.folder()
            let receipts = folder.appendingPathComponent("receipts")
            let extensionProcess = try ChildProcess.start(
                Self.probe,
                [folder.path, "http://127.0.0.1:\(farAway.port)", "pk_test", Self.token, "delivered", "id-killed"])
            let claimed = try await Self.until("the extension claims its receipt") {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: receipts.path)) ?? []
                return names.contains { $0.contains(".json.sending.") }
            }
            try #require(claimed)
            extensionProcess.kill()
            #expect(await extensionProcess.result().status == 128 + SIGKILL)
            let app = try Self.herald(folder: folder, url: "http://127.0.0.1:\(recorder.port)")
            let began = ContinuousClock.now
            #expect(await app.sendReceipts(), "the dead process's claim was taken back")
            #expect(ContinuousClock.now - began < .seconds(60), "well before the 120 s a claim may last")
            #expect(Self.arrivals(recorder) == ["delivered id-killed"])
        }
    }

    @Test("files that cannot be read are counted exactly by two processes at once, and each is reported as a problem")
    func corruptCountedAcrossProcesses() async throws {
        try await PostRecorder.running(paths: ["v1/feedback"]) { recorder in
            let folder = Self.folder()
            let problems = Problems()
            var configuration = HeraldConfiguration(
                providerURL: URL(string: "http://127.0.0.1:\(recorder.port)")!, publishableKey: "pk_test",
                folder: folder)
            configuration.longestRetryDelay = .seconds(1)
            let app = try Herald(configuration: configuration, onProblem: { problems.add($0) })
            let receipts = folder.appendingPathComponent("receipts")
            for index in 0..<60 {
                try Data("{\"event\": \"deliv".utf8).write(
                    to: receipts.appendingPathComponent(String(format: "%020d-0.json", index + 1)))
            }
            let other = try ChildProcess.start(
                Self.probe, [folder.path, "http://127.0.0.1:\(recorder.port)", "pk_test", Self.token, "delivered"])
            _ = await app.sendReceipts()
            let probe = await other.result()
            let printed = String(decoding: probe.output, as: UTF8.self)
            #expect(probe.status == 0, "\(printed)")
            #expect(app.receiptQueue.corrupt == 60, "the two processes' counts, added up: \(printed)")
            let reported = problems.count { "\($0)".contains("could not be read") }
            let reportedByProbe = printed.split(separator: "\n").filter { $0.contains("could not be read") }.count
            #expect(reported + reportedByProbe == 60, "each file reported once, by whichever process found it")
        }
    }

    /// Waits until `condition` holds, looking again every 20 ms: the other process's files have no event to wait on.
    static func until(_ what: String, within limit: Duration = .seconds(120), _ condition: () -> Bool) async throws
        -> Bool
    {
        let began = ContinuousClock.now
        while !condition() {
            guard ContinuousClock.now - began < limit else {
                Issue.record("waited \(limit) for \(what)")
                return false
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}

/// The problems HeraldKit reported through `onProblem`.
final class Problems: Sendable {
    private let seen = Mutex<[HeraldError]>([])

    func add(_ problem: HeraldError) { seen.withLock { $0.append(problem) } }

    func count(where matches: (HeraldError) -> Bool) -> Int { seen.withLock { $0.filter(matches).count } }
}
