import APNSCore
import Foundation
import Synchronization

/// One connection's token-authentication state, shared by its streams.
final class ConnectionAuthentication: Sendable {
    private let current = Mutex(APNSTokenConnectionState())

    var state: APNSTokenConnectionState { current.withLock { $0 } }

    /// Accepts a verified token for a request, or returns APNs' rejection.
    func accept(_ token: APNSProviderToken, now: Date) -> APNSRequestRejection? {
        current.withLock { $0.accept(token, now: now) }
    }
}
