/// The alert a Live Activity update (or a scheduled activity's start) shows, as ActivityKit declares it:
/// `init(title: LocalizedStringResource, body: LocalizedStringResource, sound: AlertConfiguration.AlertSound)`.
public struct AlertConfiguration: Hashable, Sendable {
    /// The sound an activity's alert plays.
    public struct AlertSound: Hashable, Sendable {
        /// The sound file's name; `nil` for the system's default sound.
        public let name: String?

        /// The system's default alert sound.
        public static var `default`: AlertSound { AlertSound(name: nil) }

        /// A sound file in the app's bundle or its `Library/Sounds`.
        public static func named(_ name: String) -> AlertSound { AlertSound(name: name) }
    }

    /// A short title for the update.
    public var title: LocalizedStringResource
    /// The alert's main text.
    public var body: LocalizedStringResource
    /// The sound it plays.
    public var sound: AlertSound

    public init(title: LocalizedStringResource, body: LocalizedStringResource, sound: AlertSound) {
        self.title = title
        self.body = body
        self.sound = sound
    }
}

/// A string to show, written in code as a literal or an interpolation (`"\(hero.name) has been knocked down!"`).
///
/// Foundation on Linux has no `LocalizedStringResource`; this one takes the same literals and keeps the text as
/// written (a simulated device has one language).
public struct LocalizedStringResource: Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The text, as written.
    public let key: String

    public init(stringLiteral value: String) {
        key = value
    }

    public init(stringInterpolation: DefaultStringInterpolation) {
        key = String(stringInterpolation: stringInterpolation)
    }

    public var description: String { key }
}
