import APNSCore
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Reads one HTTP/2 stream's request, hands it to the processor, and writes the answer: `:status`, `apns-id`,
/// `apns-unique-id` in development, and a JSON error body.
final class ProviderStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// Reading stops past this many body bytes: more than any push type's limit.
    static let bodyLimit = 5120

    private let processor: ProviderRequestProcessor
    private let admin: AdminRequestProcessor
    private let connection: ConnectionAuthentication
    private let settings: ConnectionSettings
    private var request = ProviderRequest()

    init(
        processor: ProviderRequestProcessor,
        admin: AdminRequestProcessor,
        connection: ConnectionAuthentication,
        settings: ConnectionSettings
    ) {
        self.processor = processor
        self.admin = admin
        self.connection = connection
        self.settings = settings
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            for (name, value, _) in headers.headers {
                switch name {
                case ":method": request.method = value
                case ":path": request.path = value
                case ":authority": request.authority = value
                case "host" where request.authority == nil: request.authority = value
                default: if !name.hasPrefix(":") { request.headers.append((name, value)) }
                }
            }
            if headers.endStream { respond(context: context) }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data {
                if request.body.count + buffer.readableBytes > Self.bodyLimit {
                    request.bodyTooLarge = true
                } else {
                    request.body.append(contentsOf: buffer.readableBytesView)
                }
            }
            if frame.endStream { respond(context: context) }
        default:
            break
        }
    }

    private func respond(context: ChannelHandlerContext) {
        let request = self.request
        let processor = self.processor
        let admin = self.admin
        let connection = self.connection
        let promise = context.eventLoop.makePromise(of: (HPACKHeaders, ByteBuffer?).self)
        promise.completeWithTask {
            if request.path?.hasPrefix("/admin/") == true {
                let answer = await admin.process(request)
                return Self.encode(status: answer.status, body: answer.body, extra: [])
            }
            let response = await processor.process(request, connection: connection)
            var extra = [("apns-id", response.apnsID)]
            if let uniqueID = response.uniqueID { extra.append((APNSRequestHeaders.Name.uniqueID, uniqueID)) }
            return Self.encode(status: response.status, body: response.error.map { Array($0.encoded()) }, extra: extra)
        }
        let loopBound = NIOLoopBound((context, self), eventLoop: context.eventLoop)
        promise.futureResult.whenSuccess { headers, body in
            let (context, handler) = loopBound.value
            handler.write(context: context, headers: headers, body: body)
        }
    }

    private static func encode(status: Int, body: [UInt8]?, extra: [(String, String)]) -> (HPACKHeaders, ByteBuffer?) {
        var headers = HPACKHeaders([(":status", String(status))])
        for (name, value) in extra { headers.add(name: name, value: value) }
        guard let body else { return (headers, nil) }
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.count))
        return (headers, ByteBuffer(bytes: body))
    }

    private func write(context: ChannelHandlerContext, headers: HPACKHeaders, body: ByteBuffer?) {
        let head = HTTP2Frame.FramePayload.headers(.init(headers: headers, endStream: body == nil))
        context.write(wrapOutboundOut(head), promise: nil)
        if let body {
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
        }
        context.flush()
        if connection.state.isAuthenticated { settings.raiseStreamLimitOnce() }
    }
}
