import ActivityKit
import Foundation

/// The alert of an activity started or updated through the device's API or terminal, as `AlertConfiguration`.
package struct ActivityAlertInput: Sendable, Hashable, Decodable {
    package var title: String
    package var body: String
    /// A sound file's name; the default sound when absent.
    package var sound: String?

    package init(title: String, body: String, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    /// The configuration, after the limits: title and body 1 to 256 characters, a sound name up to 256.
    func configuration() throws(DeviceError) -> AlertConfiguration {
        guard (1...256).contains(title.count), (1...256).contains(body.count) else {
            throw DeviceError("alert: title and body are each 1 to 256 characters")
        }
        if let sound, !(1...256).contains(sound.count) {
            throw DeviceError("alert.sound is a sound file's name, 1 to 256 characters")
        }
        return AlertConfiguration(
            title: LocalizedStringResource(stringLiteral: title), body: LocalizedStringResource(stringLiteral: body),
            sound: sound.map { .named($0) } ?? .default)
    }
}

/// How an activity started through the device's API or terminal is requested: its style, its alert and, for a
/// scheduled activity (iOS 26), its start.
package struct ActivityStartOptions: Sendable, Hashable {
    /// `standard` or `transient`; `standard` when absent.
    package var style: String?
    package var alert: ActivityAlertInput?
    /// UNIX seconds.
    package var start: Double?

    package init(style: String? = nil, alert: ActivityAlertInput? = nil, start: Double? = nil) {
        self.style = style
        self.alert = alert
        self.start = start
    }

    /// The checked values: a start needs an alert (as `request(…alertConfiguration:start:)` does) and is within ten
    /// years of `now`; one not after now starts the activity at once.
    func checked(now: Date) throws(DeviceError) -> (ActivityStyle, AlertConfiguration?, Date?) {
        guard let style = ActivityStyle(rawValue: style ?? "standard") else {
            throw DeviceError("style is standard or transient, not '\(self.style ?? "")'")
        }
        let alert = try alert.map { input throws(DeviceError) in try input.configuration() }
        guard let start else { return (style, alert, nil) }
        let tenYears = 10 * 365 * 86_400.0
        guard start.isFinite, abs(start - now.timeIntervalSince1970) <= tenYears else {
            throw DeviceError("start is UNIX seconds within ten years of now; got \(start)")
        }
        guard alert != nil else {
            throw DeviceError(
                "a scheduled activity needs alert: {\"title\", \"body\"}, as request(…alertConfiguration:start:) does")
        }
        return (style, alert, Date(timeIntervalSince1970: start))
    }
}
