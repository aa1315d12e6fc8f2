package import APNSCore

/// Where a delivery goes: one device, by its token, or every device subscribed to a broadcast channel.
package enum DeliveryAddress: Sendable, Hashable {
    case device(token: String)
    case channel(APNSChannelID)

    /// The device token; `nil` for a channel.
    package var deviceToken: String? {
        if case .device(let token) = self { token } else { nil }
    }

    /// As a delivery row's `token` column holds it: a device's token, or a channel's ID behind `channel:`. Only the
    /// stores write or read this form.
    var stored: String {
        switch self {
        case .device(let token): token
        case .channel(let id): Self.channelPrefix + id.rawValue
        }
    }

    /// The address a row's `token` column holds; a channel whose ID no longer reads as one stays a device address
    /// that APNs refuses (`BadDeviceToken`), never a crash.
    init(stored: String) {
        if stored.hasPrefix(Self.channelPrefix),
            let id = APNSChannelID(rawValue: String(stored.dropFirst(Self.channelPrefix.count)))
        {
            self = .channel(id)
        } else {
            self = .device(token: stored)
        }
    }

    static let channelPrefix = "channel:"
}
