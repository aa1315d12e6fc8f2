import Foundation
import Synchronization
import Testing

@testable import HeraldConsole

@Suite("A live view told of its changes is read only after one")
struct LiveFeedChangesTests {
    /// A record of changes a test makes, with a wait that resumes at the next one.
    final class Record: Sendable {
        private let state = Mutex<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))

        func change() {
            let waiting = state.withLock { state in
                state.count += 1
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiting { waiter.resume() }
        }

        var changes: LiveFeeds.Changes {
            LiveFeeds.Changes(
                count: { self.state.withLock { $0.count } },
                wait: { seen, _ in
                    await withCheckedContinuation { continuation in
                        let now = self.state.withLock { state in
                            guard state.count == seen else { return true }
                            state.waiters.append(continuation)
                            return false
                        }
                        if now { continuation.resume() }
                    }
                })
        }
    }

    @Test("no read while nothing changes however short the interval; one read after each change")
    func readsFollowChanges() async throws {
        let feeds = LiveFeeds()
        let record = Record()
        let reads = Atomic(0)
        let stream = feeds.subscribe("history app", every: .milliseconds(1), changes: record.changes) {
            Data("read \(reads.add(1, ordering: .relaxed).newValue)".utf8)
        }
        var updates = stream.makeAsyncIterator()
        #expect(await updates.next() == .changed(Data("read 1".utf8)))
        // Forty intervals pass with no change: the view is not read again.
        try await Task.sleep(for: .milliseconds(40))
        #expect(reads.load(ordering: .relaxed) == 1)
        record.change()
        #expect(await updates.next() == .changed(Data("read 2".utf8)))
        record.change()
        #expect(await updates.next() == .changed(Data("read 3".utf8)))
    }
}
