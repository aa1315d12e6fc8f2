import Synchronization
import TestPacing
import Testing

@Suite("The slots that pace tests that start servers")
struct ServerSlotsTests {
    @Test("never more bodies at once than slots, and every body runs")
    func bounded() async throws {
        let slots = ServerSlots(count: 2)
        let running = Shared((now: 0, most: 0, ran: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await slots.withSlot(timeLimit: .seconds(300), name: "body") {
                        running.value.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        for _ in 0..<20 { await Task.yield() }
                        running.value.withLock {
                            $0.now -= 1
                            $0.ran += 1
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = running.value.withLock { $0 }
        #expect(seen.most <= 2, "at most 2 at once, saw \(seen.most)")
        #expect(seen.ran == 12)
    }

    @Test("a slot taken inside a slot (a marked test in a marked suite) runs at once instead of waiting for itself")
    func nested() async throws {
        let slots = ServerSlots(count: 1)
        let ran = Mutex(false)
        try await slots.withSlot(timeLimit: .seconds(300), name: "outer") {
            #expect(ServerSlots.isHeld)
            try await slots.withSlot(timeLimit: .seconds(300), name: "inner") { ran.withLock { $0 = true } }
        }
        #expect(ran.withLock { $0 })
        #expect(!ServerSlots.isHeld)
    }

    @Test("a body past its limit is recorded as hung, naming the test, and cancelled")
    func timeLimit() async throws {
        let slots = ServerSlots(count: 1)
        let cancelled = Mutex(false)
        try await withKnownIssue {
            try await slots.withSlot(timeLimit: .milliseconds(50), name: "a hung test") {
                do {
                    try await Task.sleep(for: .seconds(600))
                } catch {
                    cancelled.withLock { $0 = true }
                }
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("a hung test ran") }
        }
        #expect(cancelled.withLock { $0 })
    }

    @Test("a harness that starts a server fails a test that holds no slot, saying what to add")
    func requireSlot() {
        withKnownIssue {
            ServerSlots.requireSlot("a gateway")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("starts a gateway without the .startsServers trait") }
        }
    }

    @Test("inside a slot a harness starts freely", .startsServers)
    func requireSlotInside() {
        #expect(ServerSlots.isHeld)
        ServerSlots.requireSlot("a gateway")
    }
}

/// A value the test's tasks share.
final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}
