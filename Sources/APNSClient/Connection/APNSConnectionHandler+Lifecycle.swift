import APNSCore
import Foundation
import HeraldHTTP2
import NIOCore
import NIOHTTP2
import Synchronization

/// The connection's life: the server's settings, GOAWAY and draining, closing, and the tick that enforces deadlines
/// and checks a quiet connection with PING.
extension APNSConnectionHandler {
    func apply(_ settings: HTTP2Settings) {
        let opening = connection.state == .starting
        let limit = connection.settingsReceived(settings)
        load.streamLimit.store(limit, ordering: .relaxed)
        observer.streamsChanged(open: inFlight.count, limit: limit)
        if opening, let context {
            // The server answers a PING at once, before any request: the network's round trip, without the time a
            // request spends being processed or waiting behind others.
            roundTripProbeSentAt = loop.now
            context.write(
                wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(Self.roundTripProbe, ack: false))),
                promise: nil)
            needsFlush = true
        }
    }

    func receivedGoAway(lastStreamID: HTTP2StreamID, code: HTTP2ErrorCode, reason: APNSReason?) {
        let why = "the server sent GOAWAY (\(reason.map(\.rawValue) ?? "\(code)"))"
        startDraining()
        for (streamID, pending) in inFlight.entries where streamID > lastStreamID {
            inFlight.remove(streamID)
            handBack(pending, .notProcessed(reason: why))
        }
        closeIfDrained()
    }

    func startDraining() {
        guard connection.startDraining() else { return }
        load.takesWork.store(false, ordering: .relaxed)
        events.stoppedTakingWork()
        while let pending = waiting.popFirst() {
            handBack(pending, .notProcessed(reason: "the connection is closing"))
        }
    }

    func closeIfDrained() {
        guard let context, connection.closeIfDrained(streamsLeft: !inFlight.isEmpty) else { return }
        let goAway = HTTP2Frame.FramePayload.goAway(lastStreamID: .rootStream, errorCode: .noError, opaqueData: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: goAway)))
            .whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    func closed(reason: String) {
        timer?.cancel()
        timer = nil
        if connection.close() {
            load.takesWork.store(false, ordering: .relaxed)
            events.stoppedTakingWork()
        }
        let entries = inFlight.entries
        inFlight = InFlightTable()
        for (_, pending) in entries { handBack(pending, .lost(reason: reason)) }
        while let pending = waiting.popFirst() { handBack(pending, .notProcessed(reason: reason)) }
    }

    /// Ends at once every notification whose send was cancelled: those waiting for a stream, and those in flight
    /// (their streams reset with `CANCEL`; APNs may have them already).
    func dropCancelled() {
        for (streamID, pending) in inFlight.entries where pending.isCancelled {
            reset(streamID, handingBack: .cancelled(written: true))
        }
        drop(where: \.isCancelled, as: .cancelled(written: false))
        if let context {
            closeIfDrained()
            flushIfNeeded(context: context)
        }
    }

    /// Deadlines, and the PING that tells a quiet connection from a dead one.
    func onTick() {
        guard let context else { return }
        let now = loop.now
        for (streamID, pending) in inFlight.entries where pending.deadline <= now {
            reset(streamID, handingBack: .deadlineExceeded)
        }
        drop(where: { $0.deadline <= now }, as: .deadlineExceeded)
        switch keepAlive.tick(at: now, canPing: connection.state == .open) {
        case .close(let reason):
            recordConnectionError(APNSClientError(reason))
            context.close(promise: nil)
            return
        case .ping:
            context.write(
                wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(), ack: false))),
                promise: nil)
            needsFlush = true
        case .none:
            break
        }
        closeIfDrained()
        flushIfNeeded(context: context)
    }

    /// Resets an in-flight stream with `CANCEL` and hands its notification back with `outcome`.
    private func reset(_ streamID: HTTP2StreamID, handingBack outcome: AttemptOutcome) {
        guard let pending = inFlight.remove(streamID) else { return }
        if let context {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
            streamErrors.ownReset()
            needsFlush = true
        }
        handBack(pending, outcome)
    }

    /// Hands back, with `outcome`, the notifications waiting for a stream that match.
    private func drop(where matches: (PendingNotification) -> Bool, as outcome: AttemptOutcome) {
        guard waiting.contains(where: matches) else { return }
        let dropped = waiting.filter(matches)
        waiting.removeAll(where: matches)
        for pending in dropped { handBack(pending, outcome) }
    }

    static func reason(in data: ByteBuffer) -> APNSReason? {
        try? APNSErrorResponse(data: Data(data.readableBytesView)).reason
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? APNSClientError { return error.message }
        return String(describing: error)
    }
}
