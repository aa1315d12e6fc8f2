import APNSCore
import Courier
import NIOCore
import NIOWebSocket

/// A device's courier connection as the store sees it: delivering writes a `notification` message to the socket.
final class CourierLink: DeviceLink, BroadcastLink {
    private let channel: any Channel

    init(channel: any Channel) {
        self.channel = channel
    }

    func deliver(_ notification: AcceptedNotification) {
        send(notification.json(extra: [("op", "notification")]))
    }

    var eventLoop: any EventLoop { channel.eventLoop }

    func deliverBroadcast(_ message: [UInt8]) {
        send(message)
    }

    /// Writes one JSON message.
    func send(_ message: JSONValue) {
        send(Array(message.encoded()))
    }

    /// Writes one text message.
    func send(_ message: [UInt8]) {
        let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: message))
        channel.writeAndFlush(frame, promise: nil)
    }
}
