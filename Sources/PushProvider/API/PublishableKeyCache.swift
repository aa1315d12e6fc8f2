import ProviderStorage
import Synchronization

/// The apps of publishable keys looked up in the last second. The publishable-key routes (registrations, receipts,
/// categories) are the busiest, and each request's key lookup cost a database read (a round trip on PostgreSQL);
/// an app changed (paused, deleted, its settings) through this provider is forgotten at once (``forget(appID:)``),
/// through another provider on the database seen at most ``lifetime`` later. Only keys that were
/// found are kept, at most ``capacity`` of them (all forgotten when full); secret keys are never kept here, so a
/// revoked API key ends at once.
final class PublishableKeyCache: Sendable {
    /// How long a key's app is used before it is read again.
    static let lifetime: Duration = .seconds(1)
    /// The most keys kept.
    static let capacity = 10_000

    private let apps = Mutex<[String: (app: StoredApp, readAt: ContinuousClock.Instant)]>([:])

    /// The app of `key`, from the last second's lookups or from `store`; `nil` when no app has it.
    func app(_ key: String, store: any ProviderStore) async throws(ProviderError) -> StoredApp? {
        let now = ContinuousClock.now
        if let kept = apps.withLock({ $0[key] }), now - kept.readAt < Self.lifetime { return kept.app }
        guard let app = try await store.app(publishableKey: key) else { return nil }
        apps.withLock { apps in
            if apps.count >= Self.capacity { apps.removeAll(keepingCapacity: true) }
            apps[key] = (app, now)
        }
        return app
    }

    /// Forgets the app `appID` (changed, paused or deleted): its key is read again at its next request.
    func forget(appID: String) {
        apps.withLock { apps in apps = apps.filter { $0.value.app.app.id != appID } }
    }
}
