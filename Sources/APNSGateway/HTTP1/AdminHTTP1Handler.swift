import NIOCore
import NIOHTTP1

/// The admin API over HTTP/1.1 (for clients that do not speak HTTP/2). The provider API is HTTP/2 only, as APNs'.
final class AdminHTTP1Handler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The largest admin request body read (a PEM key is a few hundred bytes).
    static let bodyLimit = 1 << 20

    private let admin: AdminRequestProcessor
    private let refusals: GatewayRefusals
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false

    init(admin: AdminRequestProcessor, refusals: GatewayRefusals) {
        self.admin = admin
        self.refusals = refusals
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
            tooLarge = false
        case .body(let buffer):
            if body.count + buffer.readableBytes > Self.bodyLimit {
                tooLarge = true
            } else {
                body.append(contentsOf: buffer.readableBytesView)
            }
        case .end:
            guard let head else { return }
            respond(to: head, context: context)
            self.head = nil
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let response: AdminResponse
        if tooLarge {
            response = .error(413, "the body is over \(Self.bodyLimit) bytes")
        } else if head.uri.hasPrefix("/admin/") {
            response = admin.process(
                method: head.method.rawValue, path: head.uri, body: body,
                authorization: head.headers.first(name: "authorization"), source: context.channel.remoteAddress)
        } else if head.uri.hasPrefix("/3/") {
            response = .error(505, "the provider API is HTTP/2 only, as APNs'; use an HTTP/2 client (curl --http2)")
        } else {
            response = .error(404, "no endpoint \(head.uri): the admin API is under /admin/, the courier at /courier")
        }
        var headers = HTTPHeaders()
        if response.status == 401 {
            headers.add(name: "www-authenticate", value: AdminCredential.challenge)
            refusals.record(.admin, peer: context.channel.remoteAddress, "no valid admin token (\(head.uri))")
        }
        if let body = response.body {
            headers.add(name: "content-type", value: response.contentType)
            headers.add(name: "content-length", value: String(body.count))
        } else {
            headers.add(name: "content-length", value: "0")
        }
        let keepAlive = head.isKeepAlive && !tooLarge
        if !keepAlive { headers.add(name: "connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil)
        if let body = response.body {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            done.whenComplete { _ in loopBound.value.close(promise: nil) }
        }
    }
}
