import NIOHPACK

/// One stream as the connection's event loop gathers it: header blocks and body bytes, read but not yet looked at.
/// The worker turns it into a ``ProviderRequest`` (checking the header block's rules there, off the event loop).
struct ReceivedStream: Sendable {
    /// The request's header block.
    var head = HPACKHeaders()
    /// A second header block after the body, if the client sent one.
    var trailers: HPACKHeaders?
    var body: [UInt8] = []
    /// Whether the body grew past what APNs accepts for any push type (reading stopped there).
    var bodyTooLarge = false
    /// Whether the stream went to the worker (further frames on it are ignored).
    var answered = false
}
