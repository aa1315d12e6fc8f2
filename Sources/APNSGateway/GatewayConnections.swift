import APNSCore
import NIOCore
import NIOHTTP2
import Synchronization

/// The gateway's open connections: at most ``limit`` at once, and shutdown says goodbye properly: provider
/// connections get `GOAWAY` with `{"reason": "Shutdown"}` before they close.
///
/// At the limit, a new connection takes the place of the oldest one still setting up (TLS and ALPN not done yet): a
/// flood of sockets that connect and say nothing cannot lock a real client out for the whole set-up deadline, since
/// each of them now lasts only until `limit` newer ones have arrived, while a real client finishes its handshake in
/// milliseconds. Only when every connection has finished setting up is a new one refused (closed at once).
final class GatewayConnections: Sendable {
    enum Kind {
        case provider, http1
    }

    /// The most connections open at once.
    let limit: Int

    /// The connections accepted and not closed yet (those still setting up included).
    var openCount: Int { admission.withLock { $0.count } }
    private let open = Mutex<[ObjectIdentifier: (channel: any Channel, kind: Kind)]>([:])
    private let admission = Mutex(Admission())

    /// The accepted connections, and those still setting up, oldest first.
    private struct Admission {
        var count = 0
        var settingUp: [ObjectIdentifier: any Channel] = [:]
        /// The order the connections in ``settingUp`` arrived in; entries that finished or closed are skipped.
        var arrivals: [ObjectIdentifier] = []
        var oldest = 0

        /// Takes the oldest connection still setting up out of the books.
        mutating func takeOldestSettingUp() -> (any Channel)? {
            while oldest < arrivals.count {
                let id = arrivals[oldest]
                oldest += 1
                if let channel = settingUp.removeValue(forKey: id) { return channel }
            }
            return nil
        }

        /// Drops the arrivals of connections that have set up or closed once they are most of the list, so it stays
        /// about as long as the connections still setting up (it never shrinks through ``takeOldestSettingUp()``
        /// alone while the limit is not reached).
        mutating func compact() {
            guard arrivals.count > 1024, arrivals.count > 2 * settingUp.count else { return }
            arrivals = arrivals[oldest...].filter { settingUp[$0] != nil }
            oldest = 0
        }
    }

    init(limit: Int) {
        self.limit = limit
    }

    /// What ``admit(_:)`` decided.
    enum Admitted {
        /// Taken, within the limit.
        case admitted
        /// Taken in place of an older connection that had not finished setting up, which is closed now.
        case shed(oldest: any Channel)
        /// Refused: every open connection has set up.
        case refused
    }

    /// Takes a newly accepted connection while fewer than ``limit`` are open, or in place of the oldest one still
    /// setting up; else refuses it. A taken connection counts as setting up until ``setUp(_:)``.
    func admit(_ channel: any Channel) -> Admitted {
        let id = ObjectIdentifier(channel)
        let decision = admission.withLock { admission -> Admitted in
            var decision = Admitted.admitted
            if admission.count >= limit {
                guard let oldest = admission.takeOldestSettingUp() else { return .refused }
                decision = .shed(oldest: oldest)
            }
            admission.count += 1
            admission.settingUp[id] = channel
            admission.arrivals.append(id)
            admission.compact()
            return decision
        }
        if case .refused = decision { return decision }
        channel.closeFuture.whenComplete { [self] _ in
            admission.withLock { admission in
                admission.count -= 1
                admission.settingUp[id] = nil
            }
        }
        if case .shed(let oldest) = decision { oldest.close(promise: nil) }
        return decision
    }

    /// How many arrivals the admission books hold (for tests: it must stay near the connections setting up).
    var arrivalsKept: Int { admission.withLock { $0.arrivals.count - $0.oldest } }

    /// The connection finished setting up (its protocol is chosen): it is no longer the first to make room.
    func setUp(_ channel: any Channel) {
        _ = admission.withLock { $0.settingUp.removeValue(forKey: ObjectIdentifier(channel)) }
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
