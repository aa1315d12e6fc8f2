package import APNSCore

/// Where a delivery goes: one device, by its token, or every device subscribed to a broadcast channel.
package enum DeliveryAddress: Sendable, Hashable {
    case device(token: String)
    case channel(APNSChannelID)

    /// The device token; `nil` for a channel.
    package var deviceToken: String? {
        if case .device(let token) = self { token } else { nil }
    }

    /// The address a delivery row's `token` and `channel_id` columns hold. A channel ID that no longer reads as one
    /// becomes an empty device token, which APNs refuses (`BadDeviceToken`): never a crash.
    init(token: String, channelID: String?) {
        if let channelID {
            self = APNSChannelID(rawValue: channelID).map(Self.channel) ?? .device(token: "")
        } else {
            self = .device(token: token)
        }
    }
}
