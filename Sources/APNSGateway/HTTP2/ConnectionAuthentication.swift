import APNSCore
import Foundation
import NIOSSL
import SwiftASN1
import Synchronization
import X509

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
    /// The TLS client certificate the connection presented.
    let certificate: ClientCertificate

    init(certificate: ClientCertificate = .none) {
        self.certificate = certificate
    }

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

/// The TLS client certificate a provider connection presented (checked against the gateway's CA in the handshake).
enum ClientCertificate: Sendable {
    /// None: the connection uses provider tokens.
    case none
    /// A provider certificate: its topics and environments.
    case push(PushCertificate)
    /// Trusted, but without APNs' topics and environment: every push is `403 BadCertificate`.
    case notForPush

    /// Reads the certificate the TLS handler received.
    init(_ peer: NIOSSLCertificate?) {
        guard let peer else {
            self = .none
            return
        }
        guard let der = try? peer.toDERBytes(), let certificate = try? Certificate(derEncoded: der),
            let push = PushCertificate(certificate)
        else {
            self = .notForPush
            return
        }
        self = .push(push)
    }

    var isPush: Bool {
        if case .push = self { return true }
        return false
    }
}
