/// How a notification is presented while the app is in the foreground.
public struct UNNotificationPresentationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    /// Deprecated on iOS 14 for `list` and `banner`; means both.
    public static let alert = UNNotificationPresentationOptions(rawValue: 1 << 2)
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)

    /// Whether the notification is shown as a banner.
    var showsBanner: Bool { contains(.banner) || contains(.alert) }
    /// Whether the notification stays in Notification Center.
    var staysInList: Bool { contains(.list) || contains(.alert) }
}
