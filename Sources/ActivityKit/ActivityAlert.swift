public import Foundation

/// An alert a Live Activity showed: from an `AlertConfiguration` the app gave, or from the `alert` of a push.
public struct ActivityAlert: Hashable, Sendable {
    public let title: String
    public let body: String
    /// The sound's file name; `nil` for the default sound, `""` for none.
    public let sound: String?
    /// When it was shown, on the device's clock.
    public let shownAt: Date

    public init(title: String, body: String, sound: String?, shownAt: Date) {
        self.title = title
        self.body = body
        self.sound = sound
        self.shownAt = shownAt
    }

    init(_ configuration: AlertConfiguration, at date: Date) {
        self.init(
            title: configuration.title.key, body: configuration.body.key, sound: configuration.sound.name,
            shownAt: date)
    }
}
