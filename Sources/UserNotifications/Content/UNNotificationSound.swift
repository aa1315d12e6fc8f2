public import Foundation

/// A sound a notification plays: the system's, a named file, or a critical alert that ignores the mute switch.
// Safety: immutable after creation.
open class UNNotificationSound: NSObject, NSCopying, @unchecked Sendable {
    /// The file name, or `nil` for the system sound.
    public let name: UNNotificationSoundName?
    /// Whether the sound is a critical alert (plays through mute and Do Not Disturb).
    public let isCritical: Bool
    /// For critical alerts, the volume from 0 to 1.
    public let volume: Float?

    init(name: UNNotificationSoundName?, isCritical: Bool, volume: Float?) {
        self.name = name
        self.isCritical = isCritical
        self.volume = volume
        super.init()
    }

    /// The system's default sound.
    public class var `default`: UNNotificationSound { UNNotificationSound(name: nil, isCritical: false, volume: nil) }
    /// The default sound as a critical alert.
    public class var defaultCritical: UNNotificationSound {
        UNNotificationSound(name: nil, isCritical: true, volume: nil)
    }
    /// The default ringtone (for calls).
    public class var defaultRingtone: UNNotificationSound {
        UNNotificationSound(name: UNNotificationSoundName("ringtone"), isCritical: false, volume: nil)
    }

    /// A sound from a file in the app's `Library/Sounds` or bundle.
    public convenience init(named name: UNNotificationSoundName) {
        self.init(name: name, isCritical: false, volume: nil)
    }

    /// The default sound as a critical alert at `volume`.
    public class func defaultCriticalSound(withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(name: nil, isCritical: true, volume: volume)
    }

    /// A named sound as a critical alert.
    public class func criticalSoundNamed(_ name: UNNotificationSoundName) -> UNNotificationSound {
        UNNotificationSound(name: name, isCritical: true, volume: nil)
    }

    /// A named sound as a critical alert at `volume`.
    public class func criticalSoundNamed(_ name: UNNotificationSoundName, withAudioVolume volume: Float)
        -> UNNotificationSound
    {
        UNNotificationSound(name: name, isCritical: true, volume: volume)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationSound else { return false }
        return name == other.name && isCritical == other.isCritical && volume == other.volume
    }

    open override var hash: Int { name?.rawValue.hashValue ?? 0 }
}

/// The name of a sound file.
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
}
