/// A channel management request as the connection writes it: a method, a path and its `apns-*` headers (reference
/// K.1). Its body is the notification's payload (empty for a read, a delete or a list).
struct ChannelRequest: Hashable, Sendable {
    /// One header field.
    struct Field: Hashable, Sendable {
        let name: String
        let value: String
    }

    let method: String
    let path: String
    let fields: [Field]
}
