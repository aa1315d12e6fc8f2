import Foundation
import Testing

/// The slots that tests marked ``StartsServersTrait`` share across the whole test process (every test target runs in
/// one process under `swift test`): a counting semaphore sized by the machine's active cores.
public final class ServerSlots: Sendable {
    /// The one set of slots of this test process.
    public static let shared = ServerSlots(count: ServerSlots.defaultCount)

    /// Two slots a core, never fewer than two: on two cores four tests that start servers run at once, which keeps
    /// both cores busy (a server test spends much of its time waiting on its own sockets and processes) without
    /// starving the ones whose waits are bounded.
    public static var defaultCount: Int { max(2, 2 * ProcessInfo.processInfo.activeProcessorCount) }

    /// Whether the current task runs inside a slot (a test case marked ``StartsServersTrait``).
    @TaskLocal public static var isHeld = false

    /// How many slots there are.
    public let count: Int

    private let permits: AsyncSemaphore

    /// Makes `count` slots.
    public init(count: Int) {
        self.count = count
        permits = AsyncSemaphore(count: count)
    }

    /// Runs `body` once a slot is free (at once when the current task holds one already, as when both a suite and
    /// its test are marked), then frees the slot.
    ///
    /// - Parameters:
    ///   - timeLimit: how long `body` may run once it holds the slot; past it an issue naming the test and the limit
    ///     is recorded and `body` is cancelled.
    ///   - name: the test's name, for that issue.
    ///   - body: the test case.
    /// - Throws: what `body` throws.
    public func withSlot(
        timeLimit: Duration, name: String, _ body: @Sendable () async throws -> Void
    ) async throws {
        if Self.isHeld {
            try await Self.run(body, timeLimit: timeLimit, name: name)
            return
        }
        try await permits.withPermit {
            try await Self.$isHeld.withValue(true) {
                try await Self.run(body, timeLimit: timeLimit, name: name)
            }
        }
    }

    /// Records an issue when the current test runs without a slot: called by every harness that starts a server, a
    /// process or a database, so a test that starts one without ``StartsServersTrait`` fails and says what to add.
    ///
    /// - Parameter what: what the harness starts, for the message ("a gateway", "`herald serve`").
    public static func requireSlot(_ what: String) {
        guard !isHeld, Test.current != nil else { return }
        let message =
            "this test starts \(what) without the .startsServers trait: add it to the @Test or its @Suite, so that "
            + "tests that start servers run a few at a time instead of all at once"
        Issue.record(Comment(rawValue: message))
    }

    private static func run(
        _ body: @Sendable () async throws -> Void, timeLimit: Duration, name: String
    ) async throws {
        try await withoutActuallyEscaping(body) { body in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await body()
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: timeLimit)
                    return false
                }
                let ended = try await group.next() ?? true
                if !ended {
                    let message =
                        "\(name) ran \(timeLimit) after it took its slot without ending: it is cancelled. A test "
                        + "that needs longer says so with .startsServers(timeLimit:)"
                    Issue.record(Comment(rawValue: message))
                }
                group.cancelAll()
            }
        }
    }
}
