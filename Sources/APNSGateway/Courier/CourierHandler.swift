import APNSCore
import Courier
import Foundation
import HeraldTime
import NIOCore
import NIOWebSocket

/// One device's courier connection (a WebSocket at `/courier`): the device registers its apps, receives their
/// notifications the moment they are accepted (or what was stored while it was away) and acknowledges each one.
/// docs/courier.md describes the messages.
final class CourierHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// The most tokens one connection (one device) may hold: its apps. Each new one is a journal record, so an
    /// unbounded loop of `register` would grow the gateway's data without end.
    static let maximumTokensPerConnection = 64
    /// The most channel subscriptions one connection may hold (its apps' activities).
    static let maximumSubscriptionsPerConnection = 1024

    private let registry: DeviceRegistry
    private let store: NotificationStore
    private let channels: ChannelRegistry
    private let refusals: GatewayRefusals
    private let tokenLimit: TokenCreationLimit
    /// The gateway's clock (``GatewayServer/Configuration/now``).
    /// The time of day the gateway goes by.
    private let clock: any WallClock
    private var peer: SocketAddress?
    private var link: CourierLink?
    private var tokens: Set<APNSDeviceToken> = []
    private var subscriptions: Set<Subscription> = []

    private struct Subscription: Hashable {
        let token: APNSDeviceToken
        let channel: APNSChannelID
    }

    init(
        registry: DeviceRegistry, store: NotificationStore, channels: ChannelRegistry, refusals: GatewayRefusals,
        tokenLimit: TokenCreationLimit, clock: any WallClock
    ) {
        self.clock = clock
        self.registry = registry
        self.store = store
        self.channels = channels
        self.refusals = refusals
        self.tokenLimit = tokenLimit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        link = CourierLink(channel: context.channel)
        peer = context.channel.remoteAddress
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let link {
            for token in tokens { store.detach(link, token: token) }
            // Its own subscriptions, one by one: a scan of every channel per closing connection would cost
            // devices × channels when a fleet disconnects.
            for subscription in subscriptions {
                channels.unsubscribe(link, token: subscription.token, from: subscription.channel)
            }
        }
        tokens = []
        subscriptions = []
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            handle(Array(frame.unmaskedData.readableBytesView))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in loopBound.value.close(promise: nil) }
        default:
            break
        }
    }

    private func handle(_ bytes: [UInt8]) {
        guard let link else { return }
        do throws(GatewayDataError) {
            let message = try CourierMessage(bytes)
            switch message {
            case .register(let bundleID, let environment, let token, let secret):
                guard tokens.count < Self.maximumTokensPerConnection || token.map(tokens.contains) == true else {
                    throw GatewayDataError(
                        "register: this connection already holds \(Self.maximumTokensPerConnection) tokens, the most "
                            + "one device may have; unregister one first")
                }
                if let refusal = creationRefusal(keeping: token) {
                    refusals.record(.tokenCreationLimit, peer: peer, refusal)
                    link.send(["op": "error", "message": .string("register: \(refusal)")])
                    return
                }
                let registration = try register(
                    bundleID: bundleID, environment: environment, token: token, secret: secret)
                let device = registration.device
                tokens.insert(device.token)
                var reply = JSONObject([
                    ("op", "registered"), ("bundle-id", .string(bundleID)),
                    ("environment", .string(environment.rawValue)), ("token", .string(device.token.hex)),
                ])
                if let secret = registration.secret { reply["secret"] = .string(secret) }
                link.send(.object(reply))
                store.attach(link, token: device.token)
            case .acknowledge(let token, let apnsID):
                guard tokens.contains(token) else { throw GatewayDataError("ack for \(token.hex): register it first") }
                store.acknowledge(apnsID, token: token)
            case .unregister(let token):
                guard tokens.contains(token) else {
                    throw GatewayDataError("unregister \(token.hex): this connection did not register it")
                }
                try registry.invalidate(token, reason: .unregistered, at: now())
                store.detach(link, token: token)
                store.discardAll(for: token, reason: "the app was removed from the device")
                tokens.remove(token)
                for subscription in subscriptions where subscription.token == token {
                    channels.unsubscribe(link, token: token, from: subscription.channel)
                    subscriptions.remove(subscription)
                }
                link.send(["op": "unregistered", "token": .string(token.hex)])
            case .subscribe(let token, let channel):
                try subscribe(token: token, channel: channel, link: link)
            case .unsubscribe(let token, let channel):
                guard tokens.contains(token) else { throw GatewayDataError("unsubscribe: register \(token.hex) first") }
                channels.unsubscribe(link, token: token, from: channel)
                subscriptions.remove(Subscription(token: token, channel: channel))
                link.send(["op": "unsubscribed", "token": .string(token.hex), "channel-id": .string(channel.rawValue)])
            case .acknowledgeBroadcast(let token, let uniqueID):
                guard tokens.contains(token) else {
                    throw GatewayDataError("broadcast-ack: register \(token.hex) first")
                }
                channels.acknowledge(uniqueID, link: link, token: token)
            }
        } catch {
            refusals.record(.courierMessage, peer: peer, error.message)
            link.send(["op": "error", "message": .string(error.message)])
        }
    }

    /// Subscribes one of this connection's apps to a channel of that app; the reply comes before the channel's
    /// stored message, if it has one.
    private func subscribe(token: APNSDeviceToken, channel: APNSChannelID, link: CourierLink) throws(GatewayDataError) {
        guard tokens.contains(token), let device = registry.device(for: token) else {
            throw GatewayDataError("subscribe: register \(token.hex) on this connection first")
        }
        let subscription = Subscription(token: token, channel: channel)
        guard subscriptions.count < Self.maximumSubscriptionsPerConnection || subscriptions.contains(subscription)
        else {
            throw GatewayDataError(
                "subscribe: this connection already holds \(Self.maximumSubscriptionsPerConnection) subscriptions, "
                    + "the most one device may have; unsubscribe one first")
        }
        let app = BroadcastApp(bundleID: device.bundleID, environment: device.environment)
        // Subscribed before it is answered: a broadcast sent once the device has its answer reaches it.
        let stored: [UInt8]?
        do {
            stored = try channels.subscribe(link, token: token, app: app, to: channel)
        } catch {
            throw GatewayDataError(
                "subscribe: \(app) has no channel \(channel) (never made there, or deleted); make one with "
                    + "POST /1/apps/\(device.bundleID)/channels on the channel management port")
        }
        subscriptions.insert(subscription)
        link.send(["op": "subscribed", "token": .string(token.hex), "channel-id": .string(channel.rawValue)])
        if let stored { link.send(stored) }
    }

    /// Why a `register` that would create a token (none asked for, or one unknown or no longer valid) may not, by
    /// this peer's ``TokenCreationLimit``; `nil` when it may, or when it keeps a valid token.
    private func creationRefusal(keeping token: APNSDeviceToken?) -> String? {
        if let token, let device = registry.device(for: token), device.invalidation == nil { return nil }
        return tokenLimit.take(1, from: peer)
    }

    /// The token for an app: the one the device asks to keep when it is still valid for that app and the device
    /// proves it owns it, else a new one.
    private func register(
        bundleID: String, environment: APNSEnvironment, token: APNSDeviceToken?, secret: String?
    ) throws(GatewayDataError) -> DeviceRegistry.Registration {
        let registration = try registry.register(
            bundleID: bundleID, environment: environment, token: token, claim: .device(secret: secret))
        guard registration.device.invalidation == nil else {
            return try registry.register(bundleID: bundleID, environment: environment)
        }
        return registration
    }
}

extension CourierHandler {
    /// The time now, on the gateway's clock.
    func now() -> Date { clock.currentDate }
}
