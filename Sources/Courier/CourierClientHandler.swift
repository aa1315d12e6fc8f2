import APNSCore
import Foundation
import NIOCore
import NIOWebSocket
import Synchronization

/// Reads the gateway's courier messages: replies go to whoever awaits them, notifications and errors to the events.
final class CourierClientHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let events: AsyncStream<CourierClient.Event>.Continuation
    private let replies: CourierReplies

    init(events: AsyncStream<CourierClient.Event>.Continuation, replies: CourierReplies) {
        self.events = events
        self.replies = replies
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            handle(Data(frame.unmaskedData.readableBytesView))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        replies.failAll(GatewayDataError("the courier connection closed"))
        events.yield(.closed)
        events.finish()
        context.fireChannelInactive()
    }

    private func handle(_ data: Data) {
        guard case .object(let object)? = try? JSONValue(parsing: data), let op = object["op"]?.string else {
            events.yield(.error("the gateway sent a message that is not a JSON object with \"op\""))
            return
        }
        switch op {
        case "notification":
            do {
                events.yield(.notification(try AcceptedNotification(json: object)))
            } catch {
                events.yield(.error("a notification could not be read: \(error)"))
            }
        case "broadcast":
            do {
                guard let text = object["token"]?.string, let token = try? APNSDeviceToken(hex: text) else {
                    throw GatewayDataError("broadcast: no token")
                }
                events.yield(.broadcast(try ChannelBroadcast(json: object), token: token))
            } catch {
                events.yield(.error("a broadcast could not be read: \(error)"))
            }
        case "subscribed", "unsubscribed":
            let key = "\(op) \(object["token"]?.string ?? "") \(object["channel-id"]?.string ?? "")"
            replies.resolve(key: key, with: object)
        case "registered":
            let key = "registered \(object["bundle-id"]?.string ?? "") \(object["environment"]?.string ?? "")"
            replies.resolve(key: key, with: object)
        case "unregistered":
            replies.resolve(key: "unregistered \(object["token"]?.string ?? "")", with: object)
        case "error":
            let message = object["message"]?.string ?? "the gateway refused a message"
            replies.failAll(GatewayDataError(message))
            events.yield(.error(message))
        default:
            events.yield(.error("the gateway sent an unknown op '\(op)'"))
        }
    }
}

/// Requests waiting for the gateway's reply, by a key naming the reply.
final class CourierReplies: Sendable {
    private let waiting = Mutex<[String: [CheckedContinuation<JSONObject, any Error>]]>([:])

    /// Runs `send` and waits for the reply named `key`.
    func await(key: String, send: () -> Void) async throws -> JSONObject {
        try await withCheckedThrowingContinuation { continuation in
            waiting.withLock { $0[key, default: []].append(continuation) }
            send()
        }
    }

    func resolve(key: String, with object: JSONObject) {
        let continuations = waiting.withLock { $0.removeValue(forKey: key) } ?? []
        for continuation in continuations { continuation.resume(returning: object) }
    }

    func failAll(_ error: any Error) {
        let continuations = waiting.withLock { waiting in
            defer { waiting = [:] }
            return waiting.values.flatMap { $0 }
        }
        for continuation in continuations { continuation.resume(throwing: error) }
    }
}
