import Synchronization

/// The ids of the events a sender holds (leased, not finished).
final class HeldEvents: Sendable {
    private let ids = Mutex<Set<Int64>>([])

    func add(_ new: [Int64]) { ids.withLock { $0.formUnion(new) } }
    func remove(_ done: [Int64]) { ids.withLock { $0.subtract(done) } }

    /// Every id held, no longer held.
    func takeAll() -> [Int64] {
        ids.withLock { ids in
            defer { ids = [] }
            return ids.sorted()
        }
    }
}

/// The endpoints (webhook URLs) a sender is serving.
final class ServedEndpoints: Sendable {
    private let urls = Mutex<Set<String>>([])

    var current: Set<String> { urls.withLock { $0 } }
    func insert(_ url: String) { _ = urls.withLock { $0.insert(url) } }
    func remove(_ url: String) { _ = urls.withLock { $0.remove(url) } }
}
