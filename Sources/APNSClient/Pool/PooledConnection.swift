import NIOCore
import Synchronization

/// A connection as the pool sees it: its event loop, its handler (touched only on that loop) and its load.
final class PooledConnection: Sendable {
    let loop: any EventLoop
    let load = ConnectionLoad()
    private let handler: NIOLoopBoundBox<APNSConnectionHandler>

    init(loop: any EventLoop, makeHandler: (ConnectionLoad) -> APNSConnectionHandler) {
        self.loop = loop
        handler = NIOLoopBoundBox.makeBoxSendingValue(
            makeHandler(load), as: APNSConnectionHandler.self, eventLoop: loop)
    }

    /// Opens the connection.
    func connect(with bootstrap: ConnectionBootstrap) {
        bootstrap.connect(on: loop, handler: handler)
    }

    /// Hands notifications to the connection (counted in its load at once, so the pool sees them).
    func submit(_ batch: [PendingNotification]) {
        load.outstanding.add(batch.count, ordering: .relaxed)
        let handler = handler
        loop.execute { handler.value.enqueue(batch) }
    }

    /// Ends at once the notifications of cancelled sends, waiting or in flight.
    func dropCancelled() {
        let handler = handler
        loop.execute { handler.value.dropCancelled() }
    }

    /// Closes once every stream has its answer.
    func closeGracefully() {
        let handler = handler
        loop.execute { handler.value.closeGracefully() }
    }
}
