public import APNSCore
public import NIOCore

/// One notification to send: where it goes (a device with its `apns-*` headers, or a broadcast channel with the
/// channel's headers) and the payload bytes.
///
/// The payload is a `ByteBuffer` so that one payload sent to many devices is shared, never copied.
public struct APNSNotification: Sendable {
    /// Where a notification goes, with the headers that go with it.
    public enum Target: Sendable {
        /// A device: its token as hexadecimal text, as it goes into `:path`, and the `apns-*` headers.
        case device(token: String, headers: APNSRequestHeaders)
        /// A broadcast on a channel: `/4/broadcasts/apps/<bundle ID>` with the channel's headers. APNs answers it
        /// with `apns-request-id`, which the result carries as its ``APNSAcceptance/apnsID``.
        case broadcast(APNSBroadcast)
    }

    /// Where it goes.
    public var target: Target
    /// The payload as sent (compact JSON).
    public var payload: ByteBuffer
    /// Set for a channel management request (``APNSChannelClient``), which goes where it says instead.
    var channelRequest: ChannelRequest?
    /// A W3C `traceparent` for a local APNs (`herald gateway`) to continue the sender's trace with: sent as the
    /// `traceparent` header to any other server, never to Apple's (`push.apple.com`), whatever is set here.
    public var traceParent: String?

    /// A notification to `target` with its payload bytes.
    public init(target: Target, payload: ByteBuffer) {
        self.target = target
        self.payload = payload
    }

    /// A notification to a device with its payload bytes.
    public init(deviceToken: String, headers: APNSRequestHeaders, payload: ByteBuffer) {
        self.init(target: .device(token: deviceToken, headers: headers), payload: payload)
    }

    /// A broadcast on a channel of `broadcast.bundleID`, with its payload bytes.
    public init(broadcast: APNSBroadcast, payload: ByteBuffer) {
        self.init(target: .broadcast(broadcast), payload: payload)
    }

    /// A notification to a device with a payload, encoded as compact JSON.
    public init(deviceToken: String, headers: APNSRequestHeaders, payload: APNSPayload) {
        self.init(deviceToken: deviceToken, headers: headers, payload: ByteBuffer(bytes: payload.encoded()))
    }

    /// The device token, for a notification to a device; `nil` for a broadcast.
    public var deviceToken: String? {
        if case .device(let token, _) = target { return token }
        return nil
    }

    /// The request's ID: `apns-id` for a device, `apns-request-id` for a broadcast, when the sender chose one.
    public var requestID: APNSMessageID? {
        switch target {
        case .device(_, let headers): headers.apnsID
        case .broadcast(let broadcast): broadcast.headers.requestID
        }
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
