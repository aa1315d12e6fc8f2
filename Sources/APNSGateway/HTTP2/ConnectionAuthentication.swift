import APNSCore
import Foundation
import Synchronization

/// One connection's token-authentication state, shared by its streams.
///
/// It also remembers the `authorization` value it last verified, so a request with the same value skips the
/// signature check (APNs binds a token to the connection too) and only has its age checked again.
final class ConnectionAuthentication: Sendable {
    private struct Current {
        var state = APNSTokenConnectionState()
        var verified: (authorization: String, token: APNSProviderToken)?
    }

    private let current = Mutex(Current())

    var state: APNSTokenConnectionState { current.withLock { $0.state } }

    /// The token behind `authorization` when it is the one this connection last verified.
    func verifiedToken(for authorization: String?) -> APNSProviderToken? {
        current.withLock { current in
            guard let authorization, let verified = current.verified, verified.authorization == authorization else {
                return nil
            }
            return verified.token
        }
    }

    /// Accepts a verified token for a request, or returns APNs' rejection.
    func accept(_ token: APNSProviderToken, authorization: String, now: Date) -> APNSRequestRejection? {
        current.withLock { current in
            let rejection = current.state.accept(token, now: now)
            if rejection == nil { current.verified = (authorization, token) }
            return rejection
        }
    }
}
