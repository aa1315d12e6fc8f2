import HTTPTypes
package import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a Herald HTTP server (the provider's API and console, a device's API) allows one connection, so idle or
/// half-sent connections cannot hold its sockets: a connection idle for ``idleTimeout`` closes, one whose first
/// request head is not complete within ``requestHeadTimeout`` closes, and past ``maximumConnections`` open at once a
/// new one is answered `503` with the reason and closed.
///
/// ```swift
/// let limits = HTTPServerLimits(maximumConnections: 500)
/// let application = Application(router: router, server: limits.server())
/// ```
package struct HTTPServerLimits: Sendable {
    /// How long a connection may stay silent between requests (default 60 s).
    package var idleTimeout: Duration
    /// How long a new connection may take to send its first request head (default 10 s).
    package var requestHeadTimeout: Duration
    /// The most connections open at once (default 1,000); lowered at run time to leave room under the process's
    /// open-file limit.
    package var maximumConnections: Int
    /// What to name in a refusal: the option that raises the limit.
    package var option: String

    /// The limits; see each property for its default.
    package init(
        idleTimeout: Duration = .seconds(60), requestHeadTimeout: Duration = .seconds(10),
        maximumConnections: Int = 1000, option: String = "--max-connections"
    ) {
        self.idleTimeout = idleTimeout
        self.requestHeadTimeout = requestHeadTimeout
        self.maximumConnections = maximumConnections
        self.option = option
    }

    /// The connection limit in force: ``maximumConnections``, or less when the open-file limit would be reached
    /// first (100 descriptors are left for the database, files and outbound connections).
    package var effectiveMaximumConnections: Int {
        var limit = rlimit()
        #if canImport(Glibc)
            let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return maximumConnections
        }
        let available = Int(clamping: limit.rlim_cur) - 100
        return max(1, min(maximumConnections, available))
    }

    /// An HTTP/1.1 server builder that applies these limits.
    package func server() -> HTTPServerBuilder {
        let open = OpenConnections()
        let (maximum, headTimeout, option) = (effectiveMaximumConnections, requestHeadTimeout, self.option)
        return .http1(
            configuration: .init(
                additionalChannelHandlers: [
                    ConnectionLimitHandler(
                        open: open, maximum: maximum, headTimeout: TimeAmount(headTimeout), option: option)
                ],
                idleTimeout: TimeAmount(idleTimeout)))
    }
}

/// How many connections a server holds now.
final class OpenConnections: Sendable {
    let count = Atomic<Int>(0)
}

/// Counts a connection in and out, refuses one over the limit with a `503`, and closes one whose first request head
/// does not arrive in time.
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let open: OpenConnections
    private let maximum: Int
    private let headTimeout: TimeAmount
    private let option: String
    private var counted = false
    private var headDeadline: Scheduled<Void>?

    init(open: OpenConnections, maximum: Int, headTimeout: TimeAmount, option: String) {
        self.open = open
        self.maximum = maximum
        self.headTimeout = headTimeout
        self.option = option
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            headDeadline?.cancel()
            headDeadline = nil
        }
        context.fireChannelRead(data)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        let holding = open.count.wrappingAdd(1, ordering: .relaxed).newValue
        guard holding <= maximum else {
            refuse(context, holding: holding - 1)
            return
        }
        let channel = context.channel
        headDeadline = context.eventLoop.scheduleTask(in: headTimeout) { channel.close(promise: nil) }
    }

    private func stop() {
        headDeadline?.cancel()
        headDeadline = nil
        if counted {
            counted = false
            open.count.wrappingSubtract(1, ordering: .relaxed)
        }
    }

    /// Answers `503` at once, before any request (as a server under load may), and closes.
    private func refuse(_ context: ChannelHandlerContext, holding: Int) {
        let message =
            #"{"error":{"status":503,"code":"connection_limit","message":"the server holds \#(holding) connections, "#
            + #"its limit (\#(option)); try again in a moment"}}"#
        let head = HTTPResponse(
            status: .serviceUnavailable,
            headerFields: [
                .contentType: "application/json", .connection: "close", .retryAfter: "1",
                .contentLength: String(message.utf8.count),
            ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(string: message))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
