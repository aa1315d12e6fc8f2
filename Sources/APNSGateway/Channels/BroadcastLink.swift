/// A device's courier connection as the channel registry sees it: it receives broadcasts for the channels the
/// device's activities subscribed to.
public protocol BroadcastLink: AnyObject, Sendable {
    /// Writes one courier message (a `broadcast`) to the device now.
    func deliverBroadcast(_ message: [UInt8])
}
