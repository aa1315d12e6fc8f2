package import APNSCore
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// The device side of the courier (docs/courier.md): connects to a gateway over TLS, registers apps, receives their
/// notifications and acknowledges them.
///
/// ```swift
/// let courier = try await CourierClient.connect(host: "127.0.0.1", port: 2197, caPEM: ca)
/// let registered = try await courier.register(bundleID: "com.example.app", environment: .development)
/// // keep registered.token and registered.secret: the secret proves the token is this device's at the next start
/// for await event in courier.events { if case .notification(let n) = event { try await courier.acknowledge(n) } }
/// ```
package final class CourierClient: Sendable {
    /// Something the gateway said.
    package enum Event: Sendable {
        /// A notification for one of the registered tokens.
        case notification(AcceptedNotification)
        /// A broadcast on a channel an app's activity subscribed to, for that app's token.
        case broadcast(ChannelBroadcast, token: APNSDeviceToken)
        /// The gateway refused a message; the text says why.
        case error(String)
        /// The connection closed.
        case closed
    }

    /// Everything the gateway sends, in order.
    package let events: AsyncStream<Event>
    private let channel: any Channel
    private let replies: CourierReplies

    private init(channel: any Channel, events: AsyncStream<Event>, replies: CourierReplies) {
        self.channel = channel
        self.events = events
        self.replies = replies
    }

    /// Connects and upgrades to the courier WebSocket.
    ///
    /// - Parameters:
    ///   - host: the gateway's address.
    ///   - port: the gateway's port.
    ///   - caPEM: the gateway's CA certificate (`DATA/ca.pem`), trusted for this connection.
    /// - Returns: a connected client with no app registered yet.
    /// - Throws: when the connection, TLS or the upgrade fails.
    package static func connect(
        host: String, port: Int, caPEM: String
    ) async throws -> CourierClient {
        let group = MultiThreadedEventLoopGroup.singleton
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(caPEM.utf8)))
        tls.applicationProtocols = ["http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        let replies = CourierReplies()
        let upgraded = group.any().makePromise(of: Void.self)
        let connecting = ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let serverName = host.first?.isNumber == true || host.contains(":") ? nil : host
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(context: context, serverHostname: serverName))
                    let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: 1 << 20) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandlers([
                                NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 1, maxAccumulatedFrameCount: 64,
                                    maxAccumulatedFrameSize: 1 << 20),
                                CourierClientHandler(events: continuation, replies: replies),
                            ])
                            upgraded.succeed()
                        }
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(
                        withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                }
            }
            .connect(host: host, port: port)
        let channel: any Channel
        do {
            channel = try await connecting.get()
        } catch {
            // A promise left unfulfilled is a crash in debug builds: the device must say "nothing is listening".
            upgraded.fail(error)
            throw error
        }
        channel.closeFuture.whenComplete { _ in upgraded.fail(ChannelError.inputClosed) }
        var headers = HTTPHeaders([("host", "\(host):\(port)"), ("content-length", "0")])
        headers.add(name: "user-agent", value: "herald-courier")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/courier", headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        do {
            try await channel.writeAndFlush(HTTPClientRequestPart.end(nil))
            try await upgraded.futureResult.get()
        } catch {
            try? await channel.close()
            throw error
        }
        return CourierClient(channel: channel, events: stream, replies: replies)
    }

    /// What the gateway answered a registration.
    package struct Registration: Sendable {
        /// The app's device token.
        package let token: APNSDeviceToken
        /// The device secret for ``token`` when the gateway made it now (a new token): keep it, it is shown once and
        /// proves the token is this device's when it registers again. `nil` when the secret given was proven.
        package let secret: String?
    }

    /// Registers an app and returns its device token: `token` when the gateway still holds it for this app and
    /// `secret` proves this device owns it, else a new one with its secret. What was stored for the token arrives as
    /// ``Event/notification(_:)`` right after.
    ///
    /// - Throws: ``GatewayDataError`` with the gateway's message when it refuses (another device's token, say).
    package func register(
        bundleID: String, environment: APNSEnvironment, token: APNSDeviceToken? = nil, secret: String? = nil
    ) async throws -> Registration {
        var message: [(key: String, value: JSONValue)] = [
            ("op", "register"), ("bundle-id", .string(bundleID)), ("environment", .string(environment.rawValue)),
        ]
        if let token { message.append(("token", .string(token.hex))) }
        if let secret { message.append(("secret", .string(secret))) }
        let reply = try await replies.await(key: "registered \(bundleID) \(environment.rawValue)") {
            send(.object(JSONObject(message)))
        }
        guard let text = reply["token"]?.string, let token = try? APNSDeviceToken(hex: text) else {
            throw GatewayDataError("the gateway's registered message has no token")
        }
        return Registration(token: token, secret: reply["secret"]?.string)
    }

    /// Tells the gateway the device received a notification.
    package func acknowledge(_ notification: AcceptedNotification) {
        send([
            "op": "ack", "token": .string(notification.token.hex),
            "apns-id": .string(notification.apnsID.lowercasedString),
        ])
    }

    /// Subscribes an app (its token) to one of its app's broadcast channels; broadcasts on it arrive as
    /// ``Event/broadcast(_:token:)``, beginning with the channel's stored message when it keeps one.
    ///
    /// - Throws: ``GatewayDataError`` with the gateway's message when the app has no such channel.
    package func subscribe(_ token: APNSDeviceToken, to channel: APNSChannelID) async throws {
        _ = try await replies.await(key: "subscribed \(token.hex) \(channel.rawValue)") {
            send(["op": "subscribe", "token": .string(token.hex), "channel-id": .string(channel.rawValue)])
        }
    }

    /// Ends an app's subscription to a channel.
    package func unsubscribe(_ token: APNSDeviceToken, from channel: APNSChannelID) async throws {
        _ = try await replies.await(key: "unsubscribed \(token.hex) \(channel.rawValue)") {
            send(["op": "unsubscribe", "token": .string(token.hex), "channel-id": .string(channel.rawValue)])
        }
    }

    /// Tells the gateway the device received a broadcast.
    package func acknowledge(_ broadcast: ChannelBroadcast, token: APNSDeviceToken) {
        send([
            "op": "broadcast-ack", "token": .string(token.hex),
            "apns-unique-id": .string(broadcast.uniqueID.lowercasedString),
        ])
    }

    /// Removes an app: later pushes to its token get `410 Unregistered`.
    package func unregister(_ token: APNSDeviceToken) async throws {
        _ = try await replies.await(key: "unregistered \(token.hex)") {
            send(["op": "unregister", "token": .string(token.hex)])
        }
    }

    /// Closes the connection.
    package func close() async {
        try? await channel.close()
    }

    private func send(_ message: JSONValue) {
        let frame = WebSocketFrame(
            fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(bytes: Array(message.encoded())))
        channel.writeAndFlush(frame, promise: nil)
    }
}
