import NIOCore
import NIOHTTP2
import Synchronization

/// Streams: opening them as far as the server and the in-flight target allow, writing a notification's frames, and
/// handing each notification back to the pool exactly once.
extension APNSConnectionHandler {
    func openStreams(context: ChannelHandlerContext) {
        guard connection.state == .open, context.channel.isWritable else { return }
        let now = loop.now
        let authorization = tokens?.current
        var opened = false
        opening: while let pending = waiting.first {
            if pending.deadline <= now || pending.isCancelled {
                waiting.removeFirst()
                handBack(pending, pending.isCancelled ? .cancelled(written: false) : .deadlineExceeded)
                continue
            }
            guard inFlight.count < inFlightTarget.target else { break opening }
            switch connection.openStream(inFlight: inFlight.count) {
            case .stream(let streamID):
                waiting.removeFirst()
                write(pending, on: streamID, authorization: authorization, now: now, context: context)
                opened = true
            case .none:
                break opening
            case .idsExhausted:
                startDraining()
                break opening
            }
        }
        if opened { observer.streamsChanged(open: inFlight.count, limit: connection.streamLimit) }
    }

    func write(
        _ pending: PendingNotification, on streamID: HTTP2StreamID, authorization: String?, now: NIODeadline,
        context: ChannelHandlerContext
    ) {
        pending.attempts += 1
        pending.response = ResponseParts(bodyLimit: pending.notification.channelRequest == nil ? 4096 : 1 << 20)
        if pending.firstSent == nil { pending.firstSent = now }
        pending.lastSent = now
        let headers = headerBuilder.headers(for: pending.notification, authorization: authorization)
        let payload = pending.notification.payload
        let endsWithHeaders = payload.readableBytes == 0
        context.write(
            wrapOutboundOut(
                HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: endsWithHeaders)))),
            promise: nil
        )
        if !endsWithHeaders {
            context.write(
                wrapOutboundOut(
                    HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(payload), endStream: true)))),
                promise: nil
            )
        }
        flushGate.holding { context.flush() }
        inFlight.insert(pending, for: streamID)
        needsFlush = true
        observer.notificationSent(attempt: pending.attempts)
    }

    func finishStream(_ streamID: HTTP2StreamID, _ pending: PendingNotification, _ outcome: AttemptOutcome) {
        inFlight.remove(streamID)
        if case .answered = outcome, let sent = pending.lastSent {
            let now = loop.now
            inFlightTarget.answered(latency: now - sent)
            inFlightTarget.evaluate(at: now, limit: connection.streamLimit)
        }
        handBack(pending, outcome)
        closeIfDrained()
        let streamLimit = min(connection.streamLimit, inFlightTarget.target)
        guard let context, !waiting.isEmpty, streamLimit - inFlight.count >= min(Self.flushEvery, streamLimit) else {
            return
        }
        openStreams(context: context)
        flushIfNeeded(context: context)
    }

    /// Every notification leaves the connection through here, exactly once. The first one handed back during a turn
    /// of the event loop schedules the hand-over of all of them at the end of that turn.
    func handBack(_ pending: PendingNotification, _ outcome: AttemptOutcome) {
        load.outstanding.subtract(1, ordering: .relaxed)
        if finishedAttempts.isEmpty {
            let loopBound = NIOLoopBound(self, eventLoop: loop)
            loop.execute { loopBound.value.handOverFinished() }
        }
        finishedAttempts.append((pending, outcome))
    }

    func handOverFinished() {
        let batch = finishedAttempts
        finishedAttempts = []
        events.finished(batch)
    }

    func flushIfNeeded(context: ChannelHandlerContext) {
        guard needsFlush else { return }
        needsFlush = false
        context.flush()
        flushGate.flushHeld()
    }
}
