import APNSCore
import NIOCore
import NIOHTTP2
import Synchronization

/// The gateway's open connections, so shutdown can say goodbye properly: provider connections get `GOAWAY` with
/// `{"reason": "Shutdown"}` before they close.
final class GatewayConnections: Sendable {
    enum Kind {
        case provider, http1
    }

    private let open = Mutex<[ObjectIdentifier: (channel: any Channel, kind: Kind)]>([:])

    func add(_ channel: any Channel, kind: Kind) {
        let id = ObjectIdentifier(channel)
        open.withLock { $0[id] = (channel, kind) }
        channel.closeFuture.whenComplete { [self] _ in _ = open.withLock { $0.removeValue(forKey: id) } }
    }

    func closeAll() async {
        let channels = open.withLock { Array($0.values) }
        for (channel, kind) in channels {
            if kind == .provider {
                let reason = APNSErrorResponse(reason: .shutdown).encoded()
                let goAway = HTTP2Frame(
                    streamID: .rootStream,
                    payload: .goAway(lastStreamID: .maxID, errorCode: .noError, opaqueData: ByteBuffer(bytes: reason)))
                try? await channel.writeAndFlush(goAway)
            }
            try? await channel.close()
        }
    }
}
