import APNSCore
import Foundation
import HeraldTime
import NIOConcurrencyHelpers

/// The provider token every request carries, signed once and reused until the policy says to sign a new one
/// (between 20 and 60 minutes), never sooner, as Apple asks. Shared by every connection of a client.
final class ProviderTokenCache: Sendable {
    private struct State {
        var token: APNSProviderToken?
        var header: String?
        var signing: Task<APNSProviderToken, any Error>?
    }

    private let signer: APNSProviderTokenSigner
    private let policy: APNSProviderTokenPolicy
    /// The clock tokens are dated by.
    private let clock: any WallClock
    private let state = NIOLockedValueBox(State())

    init(signer: APNSProviderTokenSigner, policy: APNSProviderTokenPolicy, clock: any WallClock) {
        self.signer = signer
        self.policy = policy
        self.clock = clock
    }

    /// The `authorization` header value to send now, signing a new token first when the current one is due.
    ///
    /// - Throws: ``APNSClientError`` when the key cannot sign.
    func authorization() async throws(APNSClientError) -> String {
        let date = clock.currentDate
        let signing: Task<APNSProviderToken, any Error>
        switch nextStep(at: date) {
        case .send(let header): return header
        case .wait(let task): signing = task
        }
        do {
            let token = try await signing.value
            return state.withLockedValue { state in
                if state.token?.jwt != token.jwt {
                    state.token = token
                    state.header = token.authorizationHeaderValue
                }
                state.signing = nil
                return state.header ?? token.authorizationHeaderValue
            }
        } catch {
            state.withLockedValue { $0.signing = nil }
            throw APNSClientError("cannot sign a provider token: \(error)")
        }
    }

    private enum Step {
        case send(String)
        case wait(Task<APNSProviderToken, any Error>)
    }

    /// The current header when it is still fresh; otherwise the signing under way, started if there is none.
    private func nextStep(at date: Date) -> Step {
        state.withLockedValue { state in
            if let token = state.token, let header = state.header,
                !policy.needsRefresh(issuedAt: token.issuedAt, now: date)
            {
                return .send(header)
            }
            if let signing = state.signing { return .wait(signing) }
            let signer = signer
            let signing = Task { try await signer.token(issuedAt: date) }
            state.signing = signing
            return .wait(signing)
        }
    }

    /// The header value signed last, for a write that cannot wait; `nil` before the first token.
    var current: String? { state.withLockedValue { $0.header } }

    /// APNs answered `ExpiredProviderToken`: the next ``authorization()`` signs a new token, unless the current one
    /// is younger than Apple's 20 minutes (a new one so soon would be `TooManyProviderTokenUpdates`; the clocks
    /// disagree then, and a retry with the same token is all that is allowed).
    func expireIfRefreshAllowed() {
        let date = clock.currentDate
        state.withLockedValue { state in
            guard let token = state.token,
                date.timeIntervalSince(token.issuedAt)
                    >= Double(APNSProviderTokenPolicy.minimumRefreshInterval.components.seconds)
            else { return }
            state.token = nil
            state.header = nil
        }
    }
}
