import Foundation
import ProviderStorage
import PushProvider
import Synchronization
import Testing

@testable import HeraldConsole

@Suite("The console's live views, shared between tabs")
struct LiveFeedsTests {
    /// A view whose answer a test sets, counting how often it is read.
    final class View: Sendable {
        let answer = Mutex(Data("v1".utf8))
        let reads = Atomic(0)
        let failing = Atomic(false)

        func read() throws -> Data {
            reads.add(1, ordering: .relaxed)
            if failing.load(ordering: .relaxed) { throw CocoaError(.fileReadUnknown) }
            return answer.withLock { $0 }
        }
    }

    @Test("fifty tabs on one view cost one read, and every tab gets its answer; a late tab gets it at once")
    func oneReadForManyTabs() async throws {
        let feeds = LiveFeeds()
        let view = View()
        var firsts: [LiveFeeds.Update] = []
        var streams: [AsyncStream<LiveFeeds.Update>] = []
        for _ in 0..<50 { streams.append(feeds.subscribe("history", every: .seconds(60)) { try view.read() }) }
        for stream in streams {
            var iterator = stream.makeAsyncIterator()
            firsts.append(try #require(await iterator.next()))
        }
        #expect(firsts.allSatisfy { $0 == .changed(Data("v1".utf8)) })
        #expect(view.reads.load(ordering: .relaxed) == 1, "one read for 50 tabs")
        var late = feeds.subscribe("history", every: .seconds(60)) { try view.read() }.makeAsyncIterator()
        #expect(await late.next() == .changed(Data("v1".utf8)))
        #expect(view.reads.load(ordering: .relaxed) == 1, "the late tab got the last answer, not a read of its own")
        #expect(feeds.running == 1)
    }

    @Test("a change reaches the tab, an unchanged answer is a keep-alive, a failed read is a problem and recovers")
    func changesAndProblems() async throws {
        let feeds = LiveFeeds()
        let view = View()
        var updates = feeds.subscribe("device 0 all", every: .milliseconds(5)) { try view.read() }.makeAsyncIterator()
        #expect(await updates.next() == .changed(Data("v1".utf8)))
        #expect(await updates.next() == .unchanged)
        view.answer.withLock { $0 = Data("v2".utf8) }
        var next = await updates.next()
        while next == .unchanged { next = await updates.next() }
        #expect(next == .changed(Data("v2".utf8)))
        view.failing.store(true, ordering: .relaxed)
        next = await updates.next()
        while next == .unchanged { next = await updates.next() }
        guard case .problem = next else {
            Issue.record("expected a problem, got \(String(describing: next))")
            return
        }
        view.failing.store(false, ordering: .relaxed)
        // Reads that failed before the switch may still be queued.
        next = await updates.next()
        while next == .unchanged || next.map({ if case .problem = $0 { true } else { false } }) == true {
            next = await updates.next()
        }
        #expect(next == .changed(Data("v2".utf8)), "after a problem the answer is sent again")
    }

    @Test("when the last tab of a view closes, its reader stops; other views go on")
    func readerStopsWithLastTab() async throws {
        let feeds = LiveFeeds()
        let view = View()
        let tabs = (0..<3).map { index in
            let stream = feeds.subscribe(index < 2 ? "a" : "b", every: .milliseconds(5)) { try view.read() }
            return Task {
                for await _ in stream {}
            }
        }
        #expect(feeds.running == 2)
        tabs[0].cancel()
        await tabs[0].value
        #expect(feeds.running == 2, "view a still has a tab")
        tabs[1].cancel()
        await tabs[1].value
        #expect(feeds.running == 1, "view a's last tab closed")
        tabs[2].cancel()
        await tabs[2].value
        #expect(feeds.running == 0)
    }

    @Test("a failed read of the provider's shows its message to the tab, never its cause (the database's error text)")
    func problemWithoutCause() async throws {
        let feeds = LiveFeeds()
        let stream = feeds.subscribe("history broken", every: .seconds(60)) {
            throw ProviderError.storage("SQLite error 13: database or disk is full at /srv/provider.sqlite")
        }
        var updates = stream.makeAsyncIterator()
        guard case .problem(let text)? = await updates.next() else {
            Issue.record("expected a problem")
            return
        }
        #expect(text.contains("try again") && !text.contains("SQLite") && !text.contains("/srv"), "\(text)")
    }
}
