/// What a device reported became of a push beyond "delivered" and "displayed" (`POST /v1/feedback` with
/// `"event": "outcome"`): why it was not shown, or how it was shown when not as sent.
package enum DeliveryOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// A background push: the app was woken, nothing was to be shown.
    case background
    /// Not shown: the person has not allowed the app's notifications.
    case notAuthorized
    /// Not shown: the app may notify but not with alerts (badge or sound only).
    case alertsOff
    /// Not shown: the app was in the foreground and its delegate chose no banner or list.
    case foregroundNotPresented
    /// Shown as the service extension's best attempt: it ran out of time.
    case extensionTimeout
    /// Shown as the original content: the service extension failed (a step, a crash).
    case extensionFailed
    /// Shown without its attachment: the file was refused (type, size) or not downloaded.
    case attachmentDropped
    /// A Live Activity push the activity took: its content changed, or it ended.
    case activityUpdated
    /// A Live Activity push that changed nothing: a `timestamp` not newer than the activity's, an activity already
    /// ended, or a content state not of the activity's type (iOS drops these silently).
    case activityIgnored
    /// A priority-10 Live Activity push past the activity's hourly budget: the system dropped it.
    case activityThrottled

    /// Whether the device did not show it at all.
    package var isNotShown: Bool {
        switch self {
        case .background, .notAuthorized, .alertsOff, .foregroundNotPresented, .activityIgnored, .activityThrottled:
            true
        case .extensionTimeout, .extensionFailed, .attachmentDropped, .activityUpdated: false
        }
    }
}
