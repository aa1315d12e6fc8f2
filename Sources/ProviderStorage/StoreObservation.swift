import Synchronization

/// What a store tells about its work as it goes, for metrics: how long each operation took and whether it failed,
/// and (PostgreSQL) how long it waited for a connection. Called on the store's tasks: quick, never blocking.
package protocol StoreObserver: Sendable {
    /// One use of the database by `operation` (the store method's name, `lease`, `record`, ...) ended.
    func operationFinished(_ operation: String, duration: Duration, failed: Bool)
    /// Work waited `duration` for a connection from the pool (PostgreSQL).
    func connectionWaited(_ duration: Duration)
}

/// The observer a store reports to: none until the service that opened the store sets one (``observe(with:)``).
package final class StoreObservation: Sendable {
    private let observer = Mutex<(any StoreObserver)?>(nil)

    package init() {}

    /// Reports the store's work to `observer` from now on.
    package func observe(with observer: any StoreObserver) {
        self.observer.withLock { $0 = observer }
    }

    /// Runs `body`, one use of the database by the method named `function` (`#function`: `lease(owner:limit:)`
    /// reports as `lease`), and reports its time and whether it failed.
    func measure<T>(_ function: String, _ body: () async throws(ProviderError) -> T) async throws(ProviderError) -> T {
        guard let observer = observer.withLock({ $0 }) else { return try await body() }
        let start = ContinuousClock.now
        let operation = String(function.prefix { $0 != "(" })
        do {
            let value = try await body()
            observer.operationFinished(operation, duration: .now - start, failed: false)
            return value
        } catch {
            observer.operationFinished(operation, duration: .now - start, failed: true)
            throw error
        }
    }

    /// Reports a wait for a connection.
    func connectionWaited(_ duration: Duration) {
        observer.withLock { $0 }?.connectionWaited(duration)
    }
}
