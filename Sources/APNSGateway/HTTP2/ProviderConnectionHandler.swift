import APNSCore
import NIOCore
import NIOHPACK
import NIOHTTP2

/// One provider connection at the frame level: it gathers each stream's request, answers it, and keeps the
/// connection's flow-control window and stream limit.
///
/// Working on frames (no channel per stream) keeps a request's cost to parsing and answering it. A request is answered
/// on the event loop without suspending unless its provider token needs its first signature check.
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
    /// The connection receive window the handler keeps open.
    static let connectionWindow = 1 << 20
    /// A stream's receive window (HTTP/2's default), topped up so a body over the limit can be read to its end after
    /// the stream was answered `413`.
    static let streamWindow = 65535

    private let processor: ProviderRequestProcessor
    private let admin: AdminRequestProcessor
    private let authentication: ConnectionAuthentication
    private var requests: [HTTP2StreamID: ProviderRequest] = [:]
    private var streamLimitRaised = false
    private var pendingWrites = false
    /// Answers written since the last flush.
    private var unflushedAnswers = 0
    private var readPending = false

    init(processor: ProviderRequestProcessor, admin: AdminRequestProcessor, certificate: ClientCertificate) {
        self.authentication = ConnectionAuthentication(certificate: certificate)
        self.streamLimitRaised = certificate.isPush
        self.processor = processor
        self.admin = admin
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            guard requests[frame.streamID] == nil || requests[frame.streamID]?.answered == false else { return }
            var request = requests[frame.streamID] ?? ProviderRequest()
            request.add(headers.headers)
            requests[frame.streamID] = request
            if headers.endStream { answer(frame.streamID, context: context) }
        case .data(let data):
            guard var request = requests[frame.streamID], !request.answered else { return }
            if case .byteBuffer(let buffer) = data.data {
                if request.body.count + buffer.readableBytes > Self.bodyLimit {
                    request.bodyTooLarge = true
                } else {
                    request.body.append(contentsOf: buffer.readableBytesView)
                }
            }
            requests[frame.streamID] = request
            if data.endStream {
                answer(frame.streamID, context: context)
            } else if request.bodyTooLarge {
                answer(frame.streamID, context: context)
            }
        case .rstStream:
            requests[frame.streamID] = nil
        default:
            break
        }
    }

    /// A stream error was already answered with `RST_STREAM` by the HTTP/2 handler; a connection error (a malformed
    /// frame, a header list over the advertised size) was answered with `GOAWAY`, so the connection is closed.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let streamError = error as? NIOHTTP2Errors.StreamError {
            requests[streamError.streamID] = nil
            return
        }
        context.close(promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let closed = event as? StreamClosedEvent {
            requests[closed.streamID] = nil
        } else if event is IdleStateHandler.IdleStateEvent {
            let reason = ByteBuffer(bytes: APNSErrorResponse(reason: .idleTimeout).encoded())
            let goAway = HTTP2Frame.FramePayload.goAway(lastStreamID: .maxID, errorCode: .noError, opaqueData: reason)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: goAway)))
                .whenComplete { _ in loopBound.value.close(promise: nil) }
            return
        } else if let window = event as? NIOHTTP2WindowUpdatedEvent, let size = window.inboundWindowSize {
            let target = window.streamID == .rootStream ? Self.connectionWindow : Self.streamWindow
            if size < target / 2 {
                let update = HTTP2Frame.FramePayload.windowUpdate(windowSizeIncrement: target - size)
                context.write(wrapOutboundOut(HTTP2Frame(streamID: window.streamID, payload: update)), promise: nil)
                pendingWrites = true
            }
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

    private func answer(_ streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        guard var request = requests[streamID] else { return }
        request.answered = true
        requests[streamID] = request
        if request.path?.hasPrefix("/admin/") == true {
            let response = admin.process(method: request.method, path: request.path ?? "", body: request.body)
            write(streamID, status: response.status, extra: [], body: response.body, context: context)
            return
        }
        if let response = processor.processImmediately(request, connection: authentication) {
            write(streamID, response, context: context)
            return
        }
        let processor = self.processor
        let authentication = self.authentication
        let pending = request
        let promise = context.eventLoop.makePromise(of: ProviderResponse.self)
        promise.completeWithTask { await processor.process(pending, connection: authentication) }
        let loopBound = NIOLoopBound((context, self), eventLoop: context.eventLoop)
        promise.futureResult.whenSuccess { response in
            let (context, handler) = loopBound.value
            handler.write(streamID, response, context: context)
            handler.flushIfNeeded(context: context)
        }
    }

    private func write(_ streamID: HTTP2StreamID, _ response: ProviderResponse, context: ChannelHandlerContext) {
        if let reason = response.goAway {
            goAway(before: streamID, reason: reason, context: context)
            return
        }
        var extra = [("apns-id", response.apnsID)]
        if let uniqueID = response.uniqueID { extra.append((APNSRequestHeaders.Name.uniqueID, uniqueID)) }
        write(
            streamID, status: response.status, extra: extra, body: response.error.map { Array($0.encoded()) },
            context: context)
        if !streamLimitRaised, authentication.state.isAuthenticated {
            streamLimitRaised = true
            let settings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: Self.authenticatedStreamLimit)]
            context.write(
                wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(settings)))),
                promise: nil)
        }
    }

    private func write(
        _ streamID: HTTP2StreamID, status: Int, extra: [(String, String)], body: [UInt8]?,
        context: ChannelHandlerContext
    ) {
        requests[streamID] = nil
        var headers = HPACKHeaders([(":status", String(status))])
        for (name, value) in extra { headers.add(name: name, value: value) }
        if let body {
            headers.add(name: "content-type", value: "application/json")
            headers.add(name: "content-length", value: String(body.count))
        }
        let head = HTTP2Frame.FramePayload.headers(.init(headers: headers, endStream: body == nil))
        context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: head)), promise: nil)
        if let body {
            let data = HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(bytes: body)), endStream: true))
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: data)), promise: nil)
        }
        pendingWrites = true
        unflushedAnswers += 1
        if unflushedAnswers >= Self.flushEvery { flushIfNeeded(context: context) }
    }

    /// An injected GOAWAY: streams from `streamID` on are left unprocessed, as APNs leaves them when it goes away.
    private func goAway(before streamID: HTTP2StreamID, reason: APNSReason, context: ChannelHandlerContext) {
        requests.removeAll()
        let last = HTTP2StreamID(max(Int(Int32(streamID)) - 2, 0))
        let body = ByteBuffer(bytes: APNSErrorResponse(reason: reason).encoded())
        let goAway = HTTP2Frame.FramePayload.goAway(lastStreamID: last, errorCode: .noError, opaqueData: body)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: goAway)))
            .whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        guard pendingWrites else { return }
        pendingWrites = false
        unflushedAnswers = 0
        context.flush()
    }
}
