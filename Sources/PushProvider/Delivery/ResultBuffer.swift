import ProviderStorage
import Synchronization

/// Results as the client reports them (on event loop threads), collected for the next database write.
final class ResultBuffer: Sendable {
    private let results = Mutex<[DeliveryResult]>([])

    func append(_ result: DeliveryResult) {
        results.withLock { $0.append(result) }
    }

    /// Everything collected since the last call.
    func take() -> [DeliveryResult] {
        results.withLock { results in
            defer { results.removeAll(keepingCapacity: true) }
            return results
        }
    }
}
