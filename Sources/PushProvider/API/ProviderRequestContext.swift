public import Hummingbird
public import NIOCore

/// The provider's request context (the API's and the console's): Hummingbird's basic one, plus the address the
/// request came from, which per-address limits (the console's failed sign-ins) are counted by.
public struct ProviderRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's address; `nil` when the connection has none (a Unix socket) or it could not be read.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
