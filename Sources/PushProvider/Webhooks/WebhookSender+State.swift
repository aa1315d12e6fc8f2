import AsyncHTTPClient
import HeraldSupport
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

/// One HTTP client per endpoint (its URL and the address it was checked at), kept between the endpoint's turns, so
/// that its pool's limit (``WebhookSender/Settings/connectionsPerEndpoint``) bounds the connections to the endpoint
/// whatever the turns do (with a client made per turn, the sender was seen holding 8 connections to one receiver at
/// once). At most ``capacity`` are kept: past it, the one used longest ago that is not serving is closed.
final class EndpointClients: Sendable {
    /// The most clients kept.
    static let capacity = 64

    private let clients = Mutex<[String: (client: HTTPClient, used: ContinuousClock.Instant)]>([:])

    /// The client of `url` at `target`, made by `make` when there is none; `busy` are the URLs being served (their
    /// clients are never closed to make room).
    func client(for url: String, at target: OutboundTarget, busy: Set<String>, make: () -> HTTPClient) -> HTTPClient {
        let key = url + " " + (target.address ?? "")
        let (client, closed) = clients.withLock { clients -> (HTTPClient, HTTPClient?) in
            if let kept = clients[key] {
                clients[key]?.used = .now
                return (kept.client, nil)
            }
            var closed: HTTPClient?
            if clients.count >= Self.capacity,
                let oldest = clients.filter({ !busy.contains(String($0.key.prefix { $0 != " " })) })
                    .min(by: { $0.value.used < $1.value.used })
            {
                closed = clients.removeValue(forKey: oldest.key)?.client
            }
            let made = make()
            clients[key] = (made, .now)
            return (made, closed)
        }
        // An unstructured task: the endpoint about to be served does not wait for another's connections to close.
        if let closed { Task { try? await closed.shutdown() } }
        return client
    }

    /// Closes every client (the sender stops).
    func closeAll() async {
        let all = clients.withLock { clients in
            defer { clients = [:] }
            return clients.values.map(\.client)
        }
        for client in all { try? await client.shutdown() }
    }
}
