import NIOCore
import NIOHTTP2

/// Decides a provider connection's requests a batch at a time on another event loop than the connection's own, so a
/// busy connection's loop only reads frames and writes answers while the checks, the store and the delivery log run
/// beside it on a second core.
///
/// Batches at the worker are decided in the order they were sent (an event loop runs its tasks first in, first out).
/// When the worker already holds ``ProviderConnectionHandler/workerLimit`` requests, the connection's loop decides the
/// next batch itself, which may then reach the store before those: HTTP/2 gives concurrent streams no order, and a
/// client that waits for each answer before sending the next has one batch in flight at a time.
struct ProviderRequestWorker: Sendable {
    /// The outcome of one request.
    enum Decision: Sendable {
        case provider(ProviderResponse)
        case admin(AdminResponse)
        /// The request carries a provider token the connection has not verified yet; its signature check suspends.
        case needsVerification(ProviderRequest)
        /// The header block breaks HTTP/2's rules: the stream is reset with `PROTOCOL_ERROR`.
        case malformed(MalformedHeaderBlock)
    }

    /// A request's stream and its decision. A struct rather than a tuple: arrays of them are copied and destroyed
    /// through code compiled for the type, where a tuple's go through the runtime's generic tuple witnesses (5 % of
    /// the gateway's time in a broadcast).
    struct Decided: Sendable {
        let streamID: HTTP2StreamID
        var decision: Decision
    }

    let processor: ProviderRequestProcessor
    let admin: AdminRequestProcessor
    /// Writes what the store holds now to the journal; called after a batch accepted a push and before its answers
    /// go out, so a 200 means the push is on disk (one write for the whole batch: group commit). `false` when the
    /// write failed.
    let persist: @Sendable () -> Bool
    /// Where batches are decided: the connection's own loop when the gateway has only one.
    let loop: any EventLoop

    /// Decides every request of a batch that can be decided without suspending; `peer` is the connection's remote
    /// address (admin calls are limited per address).
    func decide(
        _ batch: [(HTTP2StreamID, ReceivedStream)], connection: ConnectionAuthentication, peer: SocketAddress?
    ) -> [Decided] {
        let decisions = decideEach(batch, connection: connection, peer: peer)
        let accepted = decisions.contains {
            if case .provider(let response) = $0.decision { return (200..<300).contains(response.status) }
            return false
        }
        guard accepted, !persist() else { return decisions }
        return decisions.map { decided in
            guard case .provider(let response) = decided.decision else { return decided }
            return Decided(streamID: decided.streamID, decision: .provider(unstoredIfNeeded(response)))
        }
    }

    /// After a failed journal write: a push that was stored for an offline device is taken back and answered `503`
    /// (the provider retries it). A push forwarded to an online device needed no disk and keeps its 200.
    func unstoredIfNeeded(_ response: ProviderResponse) -> ProviderResponse {
        guard let stored = response.stored else { return response }
        processor.store.withdraw(stored.notification, restoring: stored.replaced)
        return .unstored(response)
    }

    private func decideEach(
        _ batch: [(HTTP2StreamID, ReceivedStream)], connection: ConnectionAuthentication, peer: SocketAddress?
    ) -> [Decided] {
        batch.map { streamID, stream in
            Decided(streamID: streamID, decision: decideOne(stream, connection: connection, peer: peer))
        }
    }

    private func decideOne(
        _ stream: ReceivedStream, connection: ConnectionAuthentication, peer: SocketAddress?
    ) -> Decision {
        let request: ProviderRequest
        do throws(MalformedHeaderBlock) {
            request = try ProviderRequest(stream)
        } catch {
            return .malformed(error)
        }
        if request.path?.hasPrefix("/admin/") == true {
            return .admin(
                admin.process(
                    method: request.method, path: request.path ?? "", body: request.body,
                    authorization: request.header("authorization"), source: peer))
        }
        if let response = processor.processImmediately(request, connection: connection) {
            return .provider(response)
        }
        return .needsVerification(request)
    }
}
