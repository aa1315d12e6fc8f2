import APNSCore
import Foundation
import HeraldHTTP2
import NIOCore
import NIOHPACK
import NIOHTTP2
import Synchronization

/// A notification leaving a connection with the outcome of its attempt.
typealias FinishedAttempt = (pending: PendingNotification, outcome: AttemptOutcome)

/// What a connection tells its pool, on the connection's event loop.
struct ConnectionEvents: Sendable {
    /// Notifications leave the connection with the outcomes of their attempts, in batches (those finished during one
    /// turn of the event loop), so the pool can turn them into results away from the connection's loop.
    let finished: @Sendable ([FinishedAttempt]) -> Void
    /// The connection takes no more work (GOAWAY, closed, or it could not be opened).
    let stoppedTakingWork: @Sendable () -> Void
}

/// One HTTP/2 connection to APNs at the frame level: it opens a stream per notification as far as the server's
/// `SETTINGS_MAX_CONCURRENT_STREAMS` allows (following every change), reads each answer, and hands every notification
/// back to the pool exactly once. It also keeps its receive window open, checks the connection with PING when it is
/// quiet, enforces deadlines, and drains on GOAWAY.
///
/// Working on frames (no channel per stream) keeps a notification's cost to writing two frames and reading one or two.
final class APNSConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The receive windows kept open: 1 MiB for the connection (answers are small, so this is never the limit),
    /// HTTP/2's default for a stream.
    static let receiveWindow = ReceiveWindow()
    /// While answers are being read, the streams they free are refilled and flushed this many at a time, so the server
    /// works on new requests while the client reads the rest: reading a whole burst before sending the next would make
    /// the two take turns.
    static let flushEvery = 16
    /// How often deadlines and the PING check run.
    static let tick = TimeAmount.milliseconds(100)

    private let events: ConnectionEvents
    private let load: ConnectionLoad
    private let tokens: ProviderTokenCache?
    private let observer: any APNSClientObserver
    private var headerBuilder: RequestHeaderBuilder
    /// The handler below HTTP/2 that holds back the flush after each stream (see ``FlushGate``).
    let flushGate = FlushGate()

    private var context: ChannelHandlerContext?
    /// Where the connection is in its life and which stream opens next.
    private var connection: ConnectionStateMachine
    private var waiting = CircularBuffer<PendingNotification>()
    private var inFlight = InFlightTable()
    /// How many streams to keep in flight: rate × round trip, within the server's limit.
    private var inFlightTarget: InFlightTarget
    /// When to PING a quiet connection and when an unanswered PING ends it.
    private var keepAlive: KeepAlive
    /// When the PING that measures the round trip went out (one, as the connection opens), until its answer.
    private var roundTripProbeSentAt: NIODeadline?
    /// The PING data that tells the round-trip probe's answer from a keep-alive's.
    static let roundTripProbe = HTTP2PingData(withInteger: 0x4845_5241_4C44_5254)
    private var timer: RepeatedTask?
    /// Tells the stream errors NIOHTTP2 reports from connection errors.
    private var streamErrors = StreamErrorFilter()
    private var needsFlush = false
    private var connectionError: (any Error)?
    /// Notifications handed back during this turn of the event loop; they leave together when it ends.
    private var finishedAttempts: [FinishedAttempt] = []
    private let loop: any EventLoop

    init(
        authority: String,
        tokens: ProviderTokenCache?,
        load: ConnectionLoad,
        observer: any APNSClientObserver,
        pingInterval: Duration,
        pingTimeout: Duration,
        streamCap: Int,
        loop: any EventLoop,
        events: ConnectionEvents
    ) {
        self.loop = loop
        self.connection = ConnectionStateMachine(streamCap: streamCap)
        self.inFlightTarget = InFlightTarget(now: loop.now)
        self.headerBuilder = RequestHeaderBuilder(authority: authority)
        self.tokens = tokens
        self.load = load
        self.observer = observer
        self.keepAlive = KeepAlive(
            interval: TimeAmount(pingInterval), timeout: TimeAmount(pingTimeout), now: loop.now)
        self.events = events
    }

    // MARK: Work from the pool

    /// Takes notifications to send; they wait for a stream when all allowed ones are busy.
    func enqueue(_ batch: [PendingNotification]) {
        guard connection.takesWork else {
            for pending in batch { handBack(pending, .notProcessed(reason: "the connection was closing")) }
            return
        }
        waiting.append(contentsOf: batch)
        if let context {
            openStreams(context: context)
            flushIfNeeded(context: context)
        }
    }

    /// The connection could not be opened: everything waiting goes back to the pool.
    func failedToConnect(_ error: any Error) {
        guard connection.close() else { return }
        load.takesWork.store(false, ordering: .relaxed)
        events.stoppedTakingWork()
        let cause = connectionError ?? error
        let reason = Self.describe(cause)
        let retryable = (cause as? ConnectionSetupError)?.retryable ?? true
        while let pending = waiting.popFirst() {
            handBack(pending, .connectionFailed(reason: reason, retryable: retryable))
        }
    }

    /// Remembers why the connection failed before HTTP/2 started (a TLS or ALPN error), for the results.
    func recordConnectionError(_ error: any Error) {
        if connectionError == nil { connectionError = error }
    }

    /// Stops taking work and closes once every stream has its answer, with a GOAWAY saying no stream was ignored.
    func closeGracefully() {
        guard connection.state != .closed else { return }
        startDraining()
        closeIfDrained()
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        keepAlive.read(at: loop.now)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: Self.tick, delay: Self.tick) { _ in
            loopBound.value.onTick()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            guard let pending = inFlight[frame.streamID] else { return }
            pending.response.add(headers.headers)
            if headers.endStream { finishStream(frame.streamID, pending, pending.response.outcome) }
        case .data(let data):
            guard let pending = inFlight[frame.streamID] else { return }
            pending.response.add(data.data)
            if data.endStream { finishStream(frame.streamID, pending, pending.response.outcome) }
        case .rstStream(let code):
            streamErrors.peerReset(frame.streamID)
            guard let pending = inFlight[frame.streamID] else { return }
            let outcome: AttemptOutcome =
                code == .refusedStream
                ? .notProcessed(reason: "the server refused the stream (REFUSED_STREAM)")
                : .lost(reason: "the server reset the stream (\(code))")
            finishStream(frame.streamID, pending, outcome)
        case .settings(.settings(let settings)):
            apply(settings)
        case .goAway(let lastStreamID, let code, let opaqueData):
            receivedGoAway(lastStreamID: lastStreamID, code: code, reason: opaqueData.flatMap(Self.reason(in:)))
        case .ping(let data, ack: true) where data == Self.roundTripProbe:
            if let sentAt = roundTripProbeSentAt {
                roundTripProbeSentAt = nil
                let roundTrip = loop.now - sentAt
                inFlightTarget.roundTripMeasured(roundTrip)
                observer.roundTripMeasured(.nanoseconds(roundTrip.nanoseconds))
            }
        case .ping(_, ack: true):
            keepAlive.pingAnswered()
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        streamErrors.readComplete()
        keepAlive.read(at: loop.now)
        openStreams(context: context)
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            openStreams(context: context)
            flushIfNeeded(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent {
            streamErrors.streamClosed(closed)
        }
        if let closed = event as? StreamClosedEvent, let pending = inFlight[closed.streamID] {
            let reason = closed.reason.map { "the stream closed (\($0))" } ?? "the stream closed without an answer"
            finishStream(closed.streamID, pending, .lost(reason: reason))
        } else if let window = event as? NIOHTTP2WindowUpdatedEvent, let update = Self.receiveWindow.update(for: window)
        {
            context.write(wrapOutboundOut(update), promise: nil)
            needsFlush = true
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// A stream error NIOHTTP2 answered with `RST_STREAM` costs only its stream, which its `StreamClosedEvent`
    /// already ended (``StreamErrorFilter``); anything else ends the connection.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !streamErrors.isStreamError() else { return }
        recordConnectionError(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed(reason: connectionError.map(Self.describe) ?? "the connection closed")
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed(reason: "the connection closed")
        self.context = nil
    }

    // MARK: Streams

    private func openStreams(context: ChannelHandlerContext) {
        guard connection.state == .open, context.channel.isWritable else { return }
        let now = loop.now
        let authorization = tokens?.current
        var opened = false
        opening: while let pending = waiting.first {
            if pending.deadline <= now {
                waiting.removeFirst()
                handBack(pending, .deadlineExceeded)
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

    private func write(
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

    private func finishStream(_ streamID: HTTP2StreamID, _ pending: PendingNotification, _ outcome: AttemptOutcome) {
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
    private func handBack(_ pending: PendingNotification, _ outcome: AttemptOutcome) {
        load.outstanding.subtract(1, ordering: .relaxed)
        if finishedAttempts.isEmpty {
            let loopBound = NIOLoopBound(self, eventLoop: loop)
            loop.execute { loopBound.value.handOverFinished() }
        }
        finishedAttempts.append((pending, outcome))
    }

    private func handOverFinished() {
        let batch = finishedAttempts
        finishedAttempts = []
        events.finished(batch)
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        guard needsFlush else { return }
        needsFlush = false
        context.flush()
        flushGate.flushHeld()
    }

    // MARK: Connection management

    private func apply(_ settings: HTTP2Settings) {
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

    private func receivedGoAway(lastStreamID: HTTP2StreamID, code: HTTP2ErrorCode, reason: APNSReason?) {
        let why = "the server sent GOAWAY (\(reason.map(\.rawValue) ?? "\(code)"))"
        startDraining()
        for (streamID, pending) in inFlight.entries where streamID > lastStreamID {
            inFlight.remove(streamID)
            handBack(pending, .notProcessed(reason: why))
        }
        closeIfDrained()
    }

    private func startDraining() {
        guard connection.startDraining() else { return }
        load.takesWork.store(false, ordering: .relaxed)
        events.stoppedTakingWork()
        while let pending = waiting.popFirst() {
            handBack(pending, .notProcessed(reason: "the connection is closing"))
        }
    }

    private func closeIfDrained() {
        guard let context, connection.closeIfDrained(streamsLeft: !inFlight.isEmpty) else { return }
        let goAway = HTTP2Frame.FramePayload.goAway(lastStreamID: .rootStream, errorCode: .noError, opaqueData: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: goAway)))
            .whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    private func closed(reason: String) {
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

    /// Deadlines, and the PING that tells a quiet connection from a dead one.
    private func onTick() {
        guard let context else { return }
        let now = loop.now
        for (streamID, pending) in inFlight.entries where pending.deadline <= now {
            inFlight.remove(streamID)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
            streamErrors.ownReset()
            needsFlush = true
            handBack(pending, .deadlineExceeded)
        }
        if waiting.contains(where: { $0.deadline <= now }) {
            let expired = waiting.filter { $0.deadline <= now }
            waiting.removeAll { $0.deadline <= now }
            for pending in expired { handBack(pending, .deadlineExceeded) }
        }
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

    private static func reason(in data: ByteBuffer) -> APNSReason? {
        try? APNSErrorResponse(data: Data(data.readableBytesView)).reason
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? APNSClientError { return error.message }
        return String(describing: error)
    }
}
