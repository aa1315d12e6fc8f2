public import APNSCore
public import NIOCore

/// One notification to send: the device token, the `apns-*` headers and the payload bytes; or a broadcast on a
/// channel (``broadcast``), which goes to `/4/broadcasts/apps/<bundle ID>` with the channel's headers instead.
///
/// The payload is a `ByteBuffer` so that one payload sent to many devices is shared, never copied.
public struct APNSNotification: Sendable {
    /// The device token as hexadecimal text, as it goes into `:path`.
    public var deviceToken: String
    /// The `apns-*` headers.
    public var headers: APNSRequestHeaders
    /// The payload as sent (compact JSON).
    public var payload: ByteBuffer
    /// Set for a broadcast (reference K.2): ``deviceToken`` and ``headers`` are not sent then. APNs answers a
    /// broadcast with `apns-request-id`, which the result carries as its ``APNSAcceptance/apnsID``.
    public var broadcast: APNSBroadcast?
    /// Set for a channel management request (``APNSChannelClient``).
    var channelRequest: ChannelRequest?

    /// A notification with its payload bytes.
    public init(deviceToken: String, headers: APNSRequestHeaders, payload: ByteBuffer) {
        self.deviceToken = deviceToken
        self.headers = headers
        self.payload = payload
    }

    /// A broadcast on a channel of `broadcast.bundleID`, with its payload bytes.
    public init(broadcast: APNSBroadcast, payload: ByteBuffer) {
        self.init(deviceToken: "", headers: APNSRequestHeaders(), payload: payload)
        self.broadcast = broadcast
    }

    /// A notification with a payload, encoded as compact JSON.
    public init(deviceToken: String, headers: APNSRequestHeaders, payload: APNSPayload) {
        self.init(deviceToken: deviceToken, headers: headers, payload: ByteBuffer(bytes: payload.encoded()))
    }
}

/// Where a broadcast goes: the app whose channel it is, and the channel's headers.
public struct APNSBroadcast: Hashable, Sendable {
    /// The app's bundle ID, with no push type suffix.
    public var bundleID: String
    /// `apns-channel-id`, `apns-priority`, `apns-expiration` and `apns-request-id`.
    public var headers: APNSBroadcastHeaders

    public init(bundleID: String, headers: APNSBroadcastHeaders) {
        self.bundleID = bundleID
        self.headers = headers
    }
}
