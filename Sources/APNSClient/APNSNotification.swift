public import APNSCore
public import NIOCore

/// One notification to send: the device token, the `apns-*` headers and the payload bytes.
///
/// The payload is a `ByteBuffer` so that one payload sent to many devices is shared, never copied.
public struct APNSNotification: Sendable {
    /// The device token as hexadecimal text, as it goes into `:path`.
    public var deviceToken: String
    /// The `apns-*` headers.
    public var headers: APNSRequestHeaders
    /// The payload as sent (compact JSON).
    public var payload: ByteBuffer

    /// A notification with its payload bytes.
    public init(deviceToken: String, headers: APNSRequestHeaders, payload: ByteBuffer) {
        self.deviceToken = deviceToken
        self.headers = headers
        self.payload = payload
    }

    /// A notification with a payload, encoded as compact JSON.
    public init(deviceToken: String, headers: APNSRequestHeaders, payload: APNSPayload) {
        self.init(deviceToken: deviceToken, headers: headers, payload: ByteBuffer(bytes: payload.encoded()))
    }
}
