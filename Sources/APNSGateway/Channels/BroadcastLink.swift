package import NIOCore

/// A device's courier connection as the channel registry sees it: it receives broadcasts for the channels the
/// device's activities subscribed to.
package protocol BroadcastLink: AnyObject, Sendable {
    /// The event loop the connection runs on: a broadcast's fan-out writes each loop's links in one task there.
    var eventLoop: any EventLoop { get }
    /// Writes one courier message (a `broadcast`) to the device now.
    func deliverBroadcast(_ message: [UInt8])
}
