import APNSCore
import Foundation
import HeraldHTTP2
import NIOCore
import NIOHPACK
import NIOHTTP2
import Synchronization

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
    /// The types of the two events the handler reads.
    static let streamClosedEvent = ObjectIdentifier(StreamClosedEvent.self)
    static let windowUpdatedEvent = ObjectIdentifier(NIOHTTP2WindowUpdatedEvent.self)

    let events: ConnectionEvents
    let load: ConnectionLoad
    let tokens: ProviderTokenCache?
    let observer: any APNSClientObserver
    var headerBuilder: RequestHeaderBuilder
    /// The handler below HTTP/2 that holds back the flush after each stream (see ``FlushGate``).
    let flushGate = FlushGate()

    var context: ChannelHandlerContext?
    /// Where the connection is in its life and which stream opens next.
    var connection: ConnectionStateMachine
    var waiting = CircularBuffer<PendingNotification>()
    var inFlight = InFlightTable()
    /// How many streams to keep in flight: rate × round trip, within the server's limit.
    var inFlightTarget: InFlightTarget
    /// When to PING a quiet connection and when an unanswered PING ends it.
    var keepAlive: KeepAlive
    /// When the PING that measures the round trip went out (one, as the connection opens), until its answer.
    var roundTripProbeSentAt: NIODeadline?
    /// The PING data that tells the round-trip probe's answer from a keep-alive's.
    static let roundTripProbe = HTTP2PingData(withInteger: 0x4845_5241_4C44_5254)
    var timer: RepeatedTask?
    /// Tells the stream errors NIOHTTP2 reports from connection errors.
    var streamErrors = StreamErrorFilter()
    var needsFlush = false
    var connectionError: (any Error)?
    /// Notifications handed back during this turn of the event loop; they leave together when it ends.
    var finishedAttempts: [FinishedAttempt] = []
    let loop: any EventLoop

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
        for pending in batch {
            if pending.isCancelled {
                handBack(pending, .cancelled(written: false))
            } else {
                waiting.append(pending)
            }
        }
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
        events.failedToConnect(reason)
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
        // NIOHTTP2 sends several events per stream; both kinds read here are structs, so comparing the event's type
        // first spares a dynamic cast from `Any` for every other event (a cast costs more than the rest of this).
        let kind = ObjectIdentifier(type(of: event))
        if kind == Self.streamClosedEvent, let closed = event as? StreamClosedEvent {
            streamErrors.streamClosed(closed)
            if let pending = inFlight[closed.streamID] {
                let reason = closed.reason.map { "the stream closed (\($0))" } ?? "the stream closed without an answer"
                finishStream(closed.streamID, pending, .lost(reason: reason))
            }
        } else if kind == Self.windowUpdatedEvent, let window = event as? NIOHTTP2WindowUpdatedEvent,
            let update = Self.receiveWindow.update(for: window)
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
}
