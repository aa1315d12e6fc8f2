import Foundation
import ProviderStorage
import PushProvider
import Synchronization

/// The console's live views, shared: one reader per view (History of one app, one simulated device's screen as one
/// app or the admin sees it) however many tabs show it. The reader reads once per interval while a tab is open, and
/// hands every tab the same answer; twenty open tabs cost one database query a second, not twenty.
final class LiveFeeds: Sendable {
    /// What a tab is sent: a new answer, a failed read (tried again), or nothing new since the last one.
    enum Update: Sendable, Equatable {
        case changed(Data)
        case problem(String)
        case unchanged
    }

    private final class Feed: Sendable {
        let subscribers = Mutex<[UUID: AsyncStream<Update>.Continuation]>([:])
        /// The last answer, for a tab that opens while the feed runs.
        let last = Mutex<Data?>(nil)
        let reader = Mutex<Task<Void, Never>?>(nil)
    }

    private let feeds = Mutex<[String: Feed]>([:])

    /// The number of views being read now (for tests).
    var running: Int { feeds.withLock { $0.count } }

    /// A tab's updates of view `key`: the last answer at once when the view is being read already, then each change
    /// (and `unchanged` once an interval, for the stream's keep-alive). The view is read by `read` every `interval`
    /// while at least one tab follows it; it stops when the last one goes.
    func subscribe(
        _ key: String, every interval: Duration, read: @escaping @Sendable () async throws -> Data
    ) -> AsyncStream<Update> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: Update.self, bufferingPolicy: .bufferingNewest(2))
        // Joining and leaving happen under one lock, so a tab never joins a feed whose reader was just stopped.
        let feed = feeds.withLock { feeds -> Feed in
            let feed = feeds[key] ?? Feed()
            if feeds[key] == nil {
                feeds[key] = feed
                feed.reader.withLock { $0 = Task { await Self.readLoop(feed, every: interval, read: read) } }
            }
            feed.subscribers.withLock { $0[id] = continuation }
            return feed
        }
        if let last = feed.last.withLock({ $0 }) { continuation.yield(.changed(last)) }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id, from: key) }
        return stream
    }

    private func unsubscribe(_ id: UUID, from key: String) {
        let stopped = feeds.withLock { feeds -> Feed? in
            guard let feed = feeds[key] else { return nil }
            let empty = feed.subscribers.withLock { subscribers in
                subscribers[id] = nil
                return subscribers.isEmpty
            }
            guard empty else { return nil }
            feeds[key] = nil
            return feed
        }
        stopped?.reader.withLock { $0?.cancel() }
    }

    private static func readLoop(
        _ feed: Feed, every interval: Duration, read: @Sendable () async throws -> Data
    ) async {
        while !Task.isCancelled {
            let update: Update
            do {
                let data = try await read()
                let previous = feed.last.withLock { last in
                    defer { last = data }
                    return last
                }
                update = data == previous ? .unchanged : .changed(data)
            } catch {
                feed.last.withLock { $0 = nil }
                // A provider error's message, never its cause (a database's error text), which only the log gets.
                let text = (error as? ProviderError)?.message ?? String(describing: error)
                update = .problem(text.replacingOccurrences(of: "\n", with: " "))
            }
            for continuation in feed.subscribers.withLock({ Array($0.values) }) { continuation.yield(update) }
            try? await Task.sleep(for: interval)
        }
    }
}
