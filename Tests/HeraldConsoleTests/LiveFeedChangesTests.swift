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
            LiveFeeds.Changes { seen, _ in
                await withCheckedContinuation { continuation in
                    let now = self.state.withLock { state in
                        guard state.count == seen else { return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if now { continuation.resume() }
                }
                return self.state.withLock { $0.count }
            }
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
        #expect(await Self.nextChange(&updates) == .changed(Data("read 2".utf8)))
        record.change()
        #expect(await Self.nextChange(&updates) == .changed(Data("read 3".utf8)))
    }

    /// The next update that is not a keep-alive: on a loaded machine a change can take over a second to be read,
    /// and the view's tabs get a keep-alive meanwhile.
    static func nextChange<Updates: AsyncIteratorProtocol>(_ updates: inout Updates) async -> LiveFeeds.Update?
    where Updates.Element == LiveFeeds.Update {
        while let update = try? await updates.next() {
            if update != .unchanged { return update }
        }
        return nil
    }

    @Test("while a view waits for a change, its tabs get a keep-alive every second", .timeLimit(.minutes(1)))
    func keepAliveWhileWaiting() async {
        let feeds = LiveFeeds()
        let stream = feeds.subscribe("history quiet", every: .milliseconds(1), changes: Record().changes) {
            Data("the view".utf8)
        }
        var updates = stream.makeAsyncIterator()
        #expect(await updates.next() == .changed(Data("the view".utf8)))
        #expect(await updates.next() == .unchanged, "a keep-alive, with no change and no read")
    }

    @Test(
        "a tab that stops reading is closed once six updates wait for it (its browser reconnects), never sent a keep-alive in place of an answer",
        .timeLimit(.minutes(1)))
    func tabThatFallsBehindIsClosed() async {
        let feeds = LiveFeeds()
        let record = Record()
        let (reads, readSink) = AsyncStream.makeStream(of: Void.self)
        let count = Atomic(0)
        let stream = feeds.subscribe("history slow tab", every: .milliseconds(1), changes: record.changes) {
            defer { readSink.yield() }
            return Data("read \(count.add(1, ordering: .relaxed).newValue)".utf8)
        }
        var read = reads.makeAsyncIterator()
        await read.next()
        for _ in 1..<LiveFeeds.tabFallsBehind {
            record.change()
            await read.next()
        }
        // A read is signalled before its update is sent: the tab starts reading only once the sixth update is queued
        // and the feed closed it (its reader stops with it), or it could drain the queue first and never fall behind.
        while feeds.running > 0 { await Task.yield() }
        var received: [LiveFeeds.Update] = []
        for await update in stream { received.append(update) }
        let answers = received.compactMap {
            if case .changed(let data) = $0 { String(decoding: data, as: UTF8.self) } else { nil }
        }
        #expect(received.count == LiveFeeds.tabFallsBehind, "\(received)")
        #expect(answers == (1...answers.count).map { "read \($0)" }, "every answer kept, in order")
        #expect(answers.count >= LiveFeeds.tabFallsBehind - 1)
        #expect(feeds.running == 0, "the closed tab was the view's last: its reader stopped")
    }
}
