/// How much a notification may interrupt the person (iOS 15).
public enum UNNotificationInterruptionLevel: UInt, Sendable, Hashable {
    /// Added to the list silently, without lighting the screen.
    case passive = 0
    /// Presented at once, with sound, unless a Focus holds it.
    case active = 1
    /// Presented at once, breaking through Focus.
    case timeSensitive = 2
    /// Presented at once, with sound, through mute and Focus.
    case critical = 3

    /// The level an `interruption-level` payload value names.
    init?(payloadValue: String) {
        switch payloadValue {
        case "passive": self = .passive
        case "active": self = .active
        case "time-sensitive": self = .timeSensitive
        case "critical": self = .critical
        default: return nil
        }
    }
}
