import Foundation
import ProviderStorage
import PushProvider
import Synchronization

/// The console's live views, shared: one reader per view (History of one app, one simulated device's screen as one
/// app or the admin sees it) however many tabs show it. The reader hands every tab the same answer; twenty open tabs
/// cost what one costs. A view told of its changes (History, by the provider's record of changes) is read again
/// only after a change, at most once an interval, and once every ``idleReread`` besides (another provider sharing
/// the queue changes it unseen); a view with no such record is read every interval.
final class LiveFeeds: Sendable {
    /// What tells a view that it may have changed: a count of changes (the provider's, a simulated device's).
    struct Changes: Sendable {
        /// The count of changes: at once when `after` is `nil`; else as soon as it differs from `after`, or when
        /// `upTo` has passed (the same count then). `nil` when it cannot be read (the device does not answer).
        let next: @Sendable (_ after: Int?, _ upTo: Duration) async -> Int?
    }

    /// How long a view told of its changes goes without a read when nothing changed.
    static let idleReread: Duration = .seconds(15)
    /// How often the tabs of a view told of its changes are sent a keep-alive while it waits for one: a tab whose
    /// browser went away is noticed when a write to it fails, and its place among the session's live views freed.
    static let keepAlive: Duration = .seconds(1)

    /// What a tab is sent: a new answer, a failed read (tried again), or nothing new since the last one.
    enum Update: Sendable, Equatable {
        case changed(Data)
        case problem(String)
        case unchanged
    }

    /// How many updates may wait for a tab that does not keep up; at ``tabFallsBehind`` it is closed (its browser
    /// reconnects and gets the last answer at once), so a keep-alive never pushes out an answer the tab has not seen.
    static let tabBuffer = 8
    static let tabFallsBehind = 6

    private final class Feed: Sendable {
        let subscribers = Mutex<[UUID: AsyncStream<Update>.Continuation]>([:])
        /// The last answer, for a tab that opens while the feed runs.
        let last = Mutex<Data?>(nil)
        let reader = Mutex<Task<Void, Never>?>(nil)

        /// Sends `update` to every tab, closing those that fell behind.
        func send(_ update: Update) {
            for continuation in subscribers.withLock({ Array($0.values) }) {
                switch continuation.yield(update) {
                case .enqueued(let remaining) where remaining > LiveFeeds.tabBuffer - LiveFeeds.tabFallsBehind:
                    break
                case .terminated:
                    break
                default:
                    continuation.finish()
                }
            }
        }
    }

    private let feeds = Mutex<[String: Feed]>([:])

    /// The number of views being read now (for tests).
    var running: Int { feeds.withLock { $0.count } }

    /// A tab's updates of view `key`: the last answer at once when the view is being read already, then each change
    /// (and `unchanged` after a read that found none, for the stream's keep-alive). The view is read by `read` while
    /// at least one tab follows it, every `interval`, or with `changes` after each change (at most once an
    /// `interval`); it stops when the last tab goes.
    func subscribe(
        _ key: String, every interval: Duration, changes: Changes? = nil,
        read: @escaping @Sendable () async throws -> Data
    ) -> AsyncStream<Update> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(
            of: Update.self, bufferingPolicy: .bufferingNewest(Self.tabBuffer))
        // Joining and leaving happen under one lock, so a tab never joins a feed whose reader was just stopped.
        let feed = feeds.withLock { feeds -> Feed in
            let feed = feeds[key] ?? Feed()
            if feeds[key] == nil {
                feeds[key] = feed
                feed.reader.withLock {
                    $0 = Task { await Self.readLoop(feed, every: interval, changes: changes, read: read) }
                }
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
        _ feed: Feed, every interval: Duration, changes: Changes?, read: @Sendable () async throws -> Data
    ) async {
        // Counted before each read, so a change during the read is read again.
        var seen = await changes?.next(nil, .zero)
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
            feed.send(update)
            try? await Task.sleep(for: interval)
            if let changes {
                let after = seen
                seen = await keepingAlive(feed) { await changes.next(after, idleReread) }
            }
        }
    }

    /// Waits for `next`, telling every tab `unchanged` every ``keepAlive`` meanwhile.
    private static func keepingAlive(_ feed: Feed, _ next: @escaping @Sendable () async -> Int?) async -> Int? {
        enum Step: Sendable {
            case counted(Int?)
            case stoppedBeating
        }
        return await withTaskGroup(of: Step.self) { group in
            group.addTask { .counted(await next()) }
            group.addTask {
                while (try? await Task.sleep(for: keepAlive)) != nil { feed.send(.unchanged) }
                return .stoppedBeating
            }
            defer { group.cancelAll() }
            for await step in group {
                if case .counted(let count) = step { return count }
            }
            return nil
        }
    }
}
