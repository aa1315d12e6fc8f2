import APNSCore
import NIOCore
import NIOHTTP2
import Synchronization

/// The gateway's open connections: at most ``limit`` at once (a connection over it is closed the moment it is
/// accepted), and shutdown says goodbye properly: provider connections get `GOAWAY` with
/// `{"reason": "Shutdown"}` before they close.
final class GatewayConnections: Sendable {
    enum Kind {
        case provider, http1
    }

    /// The most connections open at once.
    let limit: Int
    private let open = Mutex<[ObjectIdentifier: (channel: any Channel, kind: Kind)]>([:])
    private let accepted = Mutex(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a newly accepted connection when fewer than ``limit`` are open; `false` when not.
    func admit(_ channel: any Channel) -> Bool {
        let admitted = accepted.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else { return false }
        channel.closeFuture.whenComplete { [self] _ in accepted.withLock { $0 -= 1 } }
        return true
    }

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
