import APNSCore
import HeraldHTTP2
import NIOCore
import NIOHPACK
import NIOHTTP2

/// One provider connection at the frame level: it gathers each stream's request, answers it, and keeps the
/// connection's flow-control window and stream limit.
///
/// Working on frames (no channel per stream) keeps a request's cost to parsing and answering it. Complete requests go
/// to a ``ProviderRequestWorker`` in batches (at the end of each read, or every ``batchLimit`` requests) and are answered
/// when its decisions come back; only a provider token's first signature check suspends.
final class ProviderConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// Reading a body stops past this many bytes (more than any push type's limit); the stream is answered at once.
    static let bodyLimit = 5120
    /// The stream limit before authentication, as observed of APNs.
    static let initialStreamLimit = 1
    /// The stream limit after the first valid provider token.
    static let authenticatedStreamLimit = 1000
    /// Answers are flushed after this many even while requests are still being read, so the client gets to work on
    /// them (and send more) instead of waiting for the whole burst: the two sides overlap instead of taking turns.
    static let flushEvery = 16
    /// The receive windows the handler keeps open: 1 MiB for the connection, HTTP/2's default for a stream (topped up
    /// so a body over the limit can be read to its end after the stream was answered `413`).
    static let receiveWindow = ReceiveWindow()

    /// Complete requests wait for the worker in batches of at most this many (a read burst is usually fewer).
    static let batchLimit = 16
    /// At most this many requests wait at the worker; a batch beyond it is decided on the connection's own loop, so
    /// under load both loops decide requests instead of one waiting for the other. (On one connection with 100
    /// concurrent streams: no limit 56,000 pushes/s, 64 about 67,000/s, 96 about 51,000/s.)
    static let workerLimit = 64

    private let worker: ProviderRequestWorker
    private let refusals: GatewayRefusals
    let authentication: ConnectionAuthentication
    /// The open streams and the complete requests not yet handed to the worker.
    var requests = ReceivedStreams(bodyLimit: ProviderConnectionHandler.bodyLimit)
    /// Requests handed to the worker whose decisions have not come back yet.
    private var requestsAtWorker = 0
    /// Batches decided here while an earlier one is still at the worker wait for it, so answers leave in order.
    private var answerOrder = AnswerOrder<[ProviderRequestWorker.Decided]>()
    var streamLimitRaised = false
    var pendingWrites = false
    /// Answers written since the last flush.
    var unflushedAnswers = 0
    private var readPending = false
    /// Tells the stream errors NIOHTTP2 reports from connection errors (``errorCaught(context:error:)``).
    private var streamErrors = StreamErrorFilter()
    /// The identifier headers (`apns-id`, `apns-unique-id`, `apns-request-id`) already in HPACK's dynamic table.
    var identifierNamesIndexed: [String] = []

    init(worker: ProviderRequestWorker, certificate: ClientCertificate, refusals: GatewayRefusals) {
        self.refusals = refusals
        self.authentication = ConnectionAuthentication(certificate: certificate)
        self.streamLimitRaised = certificate.isPush
        self.worker = worker
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            if requests.headers(headers.headers, endStream: headers.endStream, on: frame.streamID) {
                completed(context: context)
            }
        case .data(let data):
            let bytes: ByteBuffer? = if case .byteBuffer(let buffer) = data.data { buffer } else { nil }
            if requests.data(bytes, endStream: data.endStream, on: frame.streamID) { completed(context: context) }
        case .rstStream:
            requests.remove(frame.streamID)
            streamErrors.peerReset(frame.streamID)
        default:
            break
        }
    }

    /// Closes the connection after a connection error (a malformed frame, a header list over the advertised size),
    /// never after a stream error, which NIOHTTP2 already answered with `RST_STREAM` (``StreamErrorFilter``).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !streamErrors.isStreamError() else { return }
        context.close(promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        streamErrors.readComplete()
        dispatch(context: context)
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Most frequent first: a window update and a stream's close come with every request.
        if let window = event as? NIOHTTP2WindowUpdatedEvent {
            if let update = Self.receiveWindow.update(for: window) {
                context.write(wrapOutboundOut(update), promise: nil)
                pendingWrites = true
            }
        } else if let closed = event as? StreamClosedEvent {
            requests.remove(closed.streamID)
            streamErrors.streamClosed(closed)
        } else if event is IdleStateHandler.IdleStateEvent {
            let reason = ByteBuffer(bytes: APNSErrorResponse(reason: .idleTimeout).encoded())
            let goAway = HTTP2Frame.FramePayload.goAway(lastStreamID: .maxID, errorCode: .noError, opaqueData: reason)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: goAway)))
                .whenComplete { _ in loopBound.value.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// A client that stops reading its answers stops being read from, so unanswered work cannot pile up.
    func read(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            context.read()
        } else {
            readPending = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, readPending {
            readPending = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    /// A request is complete and joined the batch the worker decides next; a full batch goes now.
    private func completed(context: ChannelHandlerContext) {
        if requests.undecidedCount >= Self.batchLimit { dispatch(context: context) }
    }

    /// Hands the waiting requests to the worker (or decides them here when the worker has enough); their answers are
    /// written when the decisions come back.
    private func dispatch(context: ChannelHandlerContext) {
        let batch = requests.takeUndecided()
        guard !batch.isEmpty else { return }
        let worker = self.worker
        let authentication = self.authentication
        let peer = context.channel.remoteAddress
        let sequence = answerOrder.handOver()
        if worker.loop === context.eventLoop || requestsAtWorker + batch.count > Self.workerLimit {
            let decisions = worker.decide(batch, connection: authentication, peer: peer)
            applyInOrder(answerOrder.decided(sequence, decisions), context: context)
            return
        }
        requestsAtWorker += batch.count
        let home = context.eventLoop
        let loopBound = NIOLoopBound((context, self), eventLoop: home)
        worker.loop.execute {
            let decisions = worker.decide(batch, connection: authentication, peer: peer)
            home.execute {
                let (context, handler) = loopBound.value
                handler.requestsAtWorker -= decisions.count
                handler.applyInOrder(handler.answerOrder.decided(sequence, decisions), context: context)
            }
        }
    }

    /// Writes the answers of the batches ready, in order.
    private func applyInOrder(_ ready: [[ProviderRequestWorker.Decided]], context: ChannelHandlerContext) {
        for index in ready.indices { apply(ready[index], context: context) }
    }

    /// Writes the answers of a decided batch, except to streams that closed meanwhile. The decisions are read in
    /// place (by index, not copied out by an iterator): a decision holds the answer's strings, and copying each one
    /// was a share of this loop's time.
    private func apply(_ decisions: [ProviderRequestWorker.Decided], context: ChannelHandlerContext) {
        for index in decisions.indices {
            let streamID = decisions[index].streamID
            guard requests.isOpen(streamID) else { continue }
            switch decisions[index].decision {
            case .provider(let response):
                write(streamID, response, context: context)
            case .admin(let response):
                var extra: [(String, String)] = []
                if response.status == 401 {
                    extra.append(("www-authenticate", AdminCredential.challenge))
                    refusals.record(.admin, peer: context.channel.remoteAddress, "no valid admin token (HTTP/2)")
                }
                write(
                    streamID, status: response.status, extra: extra, body: response.body,
                    contentType: response.contentType, context: context)
            case .needsVerification(let request):
                verify(request, streamID: streamID, context: context)
            case .malformed:
                requests.remove(streamID)
                let reset = HTTP2Frame(streamID: streamID, payload: .rstStream(.protocolError))
                context.write(wrapOutboundOut(reset), promise: nil)
                streamErrors.ownReset()
                pendingWrites = true
            }
        }
        flushIfNeeded(context: context)
    }

    /// Answers a request whose provider token needs its signature checked first.
    private func verify(_ request: ProviderRequest, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        let worker = self.worker
        let authentication = self.authentication
        let promise = context.eventLoop.makePromise(of: ProviderResponse.self)
        promise.completeWithTask {
            let response = await worker.processor.process(request, connection: authentication)
            guard (200..<300).contains(response.status), !worker.persist() else { return response }
            return worker.unstoredIfNeeded(response)
        }
        let loopBound = NIOLoopBound((context, self), eventLoop: context.eventLoop)
        promise.futureResult.whenSuccess { response in
            let (context, handler) = loopBound.value
            guard handler.requests.isOpen(streamID) else { return }
            handler.write(streamID, response, context: context)
            handler.flushIfNeeded(context: context)
        }
    }
}
