package import Crypto

/// The provider's key for the deliveries' `apns-id`s (``DeliveryMessageID``), with the two HMACs it keys set up once:
/// keying an HMAC costs two SHA-256 blocks, and every `apns-id` made or read (a receipt storm reads thousands a
/// second) starts from copies of these.
package struct MessageKey: Sendable {
    /// An HMAC keyed by the key: the first 74 bits of an `apns-id`.
    let keyed: HMAC<SHA256>
    /// An HMAC keyed by the mask's key (derived from the key): the mask over the delivery's number.
    let masking: HMAC<SHA256>

    /// The key `key`, with its mask's key derived from it.
    package init(_ key: SymmetricKey) {
        keyed = HMAC<SHA256>(key: key)
        let maskKey = SymmetricKey(
            data: HMAC<SHA256>.authenticationCode(for: Array("herald apns-id mask".utf8), using: key))
        masking = HMAC<SHA256>(key: maskKey)
    }
}
