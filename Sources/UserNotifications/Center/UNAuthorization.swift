/// What an app asks permission for.
public struct UNAuthorizationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
    public static let criticalAlert = UNAuthorizationOptions(rawValue: 1 << 4)
    public static let providesAppNotificationSettings = UNAuthorizationOptions(rawValue: 1 << 5)
    /// Granted at once without asking; notifications arrive quietly until the person decides.
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)
    public static let announcement = UNAuthorizationOptions(rawValue: 1 << 7)
    public static let timeSensitive = UNAuthorizationOptions(rawValue: 1 << 8)
}

/// Whether the app may notify.
public enum UNAuthorizationStatus: Int, Sendable, Hashable {
    case notDetermined = 0
    case denied = 1
    case authorized = 2
    case provisional = 3
    case ephemeral = 4
}

/// The state of one notification setting.
public enum UNNotificationSetting: Int, Sendable, Hashable {
    case notSupported = 0
    case disabled = 1
    case enabled = 2
}

/// How alerts look.
public enum UNAlertStyle: Int, Sendable, Hashable {
    case none = 0
    case banner = 1
    case alert = 2
}

/// When previews are shown.
public enum UNShowPreviewsSetting: Int, Sendable, Hashable {
    case always = 0
    case whenAuthenticated = 1
    case never = 2
}

/// What the person allowed.
public struct UNNotificationSettings: Sendable, Hashable {
    public let authorizationStatus: UNAuthorizationStatus
    public let soundSetting: UNNotificationSetting
    public let badgeSetting: UNNotificationSetting
    public let alertSetting: UNNotificationSetting
    public let notificationCenterSetting: UNNotificationSetting
    public let lockScreenSetting: UNNotificationSetting
    public let carPlaySetting: UNNotificationSetting
    public let alertStyle: UNAlertStyle
    public let showPreviewsSetting: UNShowPreviewsSetting
    public let criticalAlertSetting: UNNotificationSetting
    public let providesAppNotificationSettings: Bool
    public let announcementSetting: UNNotificationSetting
    public let timeSensitiveSetting: UNNotificationSetting
    /// Whether the person put the app in the Scheduled Summary (iOS 15): off until they do, so never on a new
    /// device; not supported before the prompt.
    public let scheduledDeliverySetting: UNNotificationSetting
    /// Whether direct messages (communication notifications) break through the Scheduled Summary (iOS 15): a
    /// simulated app has no Communication Notifications capability, so not supported.
    public let directMessagesSetting: UNNotificationSetting

    /// The settings for a status and the options the person granted, as iOS reports them: nothing before the
    /// prompt, disabled after "Don't Allow", enabled (banner style) for what was granted.
    init(status: UNAuthorizationStatus, granted: UNAuthorizationOptions) {
        func setting(_ option: UNAuthorizationOptions) -> UNNotificationSetting {
            switch status {
            case .notDetermined: .notSupported
            case .denied: .disabled
            default: granted.contains(option) ? .enabled : .disabled
            }
        }
        let alerting = status == .authorized || status == .ephemeral
        authorizationStatus = status
        soundSetting = setting(.sound)
        badgeSetting = setting(.badge)
        alertSetting = setting(.alert)
        notificationCenterSetting =
            status == .notDetermined ? .notSupported : (status == .denied ? .disabled : .enabled)
        lockScreenSetting = alerting ? setting(.alert) : (status == .notDetermined ? .notSupported : .disabled)
        carPlaySetting = setting(.carPlay)
        alertStyle = alerting && granted.contains(.alert) ? .banner : .none
        showPreviewsSetting = .always
        criticalAlertSetting = setting(.criticalAlert)
        providesAppNotificationSettings = granted.contains(.providesAppNotificationSettings)
        announcementSetting = setting(.announcement)
        timeSensitiveSetting = setting(.timeSensitive)
        scheduledDeliverySetting = status == .notDetermined ? .notSupported : .disabled
        directMessagesSetting = .notSupported
    }
}

/// How the simulated person answers the authorization prompt.
public struct UNAuthorizationAnswer: Sendable, Hashable {
    /// Whether the person taps Allow.
    public var granted: Bool
    /// Which of the requested options the person allows (all requested when `nil`).
    public var options: UNAuthorizationOptions?

    public init(granted: Bool, options: UNAuthorizationOptions? = nil) {
        self.granted = granted
        self.options = options
    }

    /// Taps Allow.
    public static let allow = UNAuthorizationAnswer(granted: true)
    /// Taps Don't Allow.
    public static let deny = UNAuthorizationAnswer(granted: false)
}
