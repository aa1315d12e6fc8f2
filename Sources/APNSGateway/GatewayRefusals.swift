import Logging
import NIOCore
import Synchronization

/// Every request the gateway refuses for who sent it or how: logged with the peer's address and the reason, and
/// counted by kind (``count(_:)``), so an operator sees probing and floods.
package final class GatewayRefusals: Sendable {
    /// What was refused.
    package enum Kind: String, Sendable, CaseIterable {
        /// An admin call without the admin token, or with another.
        case admin
        /// A courier message the gateway would not take (another device's token, a malformed message).
        case courierMessage = "courier-message"
        /// A courier frame that breaks RFC 6455 (unmasked, reserved bits or opcode).
        case courierFrame = "courier-frame"
        /// A connection over the connection limit.
        case connectionLimit = "connection-limit"
        /// A new device token over its source address's ``TokenCreationLimit``.
        case tokenCreationLimit = "token-creation-limit"
    }

    private let logger: Logger
    private let counts = Mutex<[Kind: Int]>([:])
    /// Where refusals are counted for `/admin/metrics`.
    private let metrics: GatewayMetrics?

    init(logger: Logger, metrics: GatewayMetrics? = nil) {
        self.logger = logger
        self.metrics = metrics
    }

    /// Logs and counts one refusal.
    func record(_ kind: Kind, peer: SocketAddress?, _ why: String) {
        counts.withLock { $0[kind, default: 0] += 1 }
        metrics?.refused(kind)
        logger.notice(
            "refused",
            metadata: ["kind": "\(kind.rawValue)", "peer": "\(peer?.description ?? "unknown")", "why": "\(why)"])
    }

    /// How many refusals of `kind` there were since the gateway started.
    package func count(_ kind: Kind) -> Int {
        counts.withLock { $0[kind, default: 0] }
    }
}
