/// The `apns-priority` header: how urgently APNs should deliver a notification.
///
/// APNs accepts exactly 10, 5 and 1 and answers anything else with `400 BadPriority`; an omitted header means 10.
public struct APNSPriority: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// 10: send now. The default. Only for notifications that alert, sound or badge.
    public static let immediate = APNSPriority(rawValue: 10)
    /// 5: send when the device's power state allows; may be grouped and throttled. Required for background pushes.
    public static let conservePower = APNSPriority(rawValue: 5)
    /// 1: put the device's power first and never wake it.
    public static let prioritizePowerConsumption = APNSPriority(rawValue: 1)

    /// The priorities APNs accepts.
    public static let allValid: [APNSPriority] = [.immediate, .conservePower, .prioritizePowerConsumption]

    /// Whether APNs accepts this priority.
    public var isValid: Bool { Self.allValid.contains(self) }

    /// Parses a header value; `nil` unless it is exactly `10`, `5` or `1`.
    public init?(headerValue: String) {
        guard let value = Int(headerValue), String(value) == headerValue else { return nil }
        self.init(rawValue: value)
        guard isValid else { return nil }
    }

    public var description: String { String(rawValue) }
}
