package import Foundation

/// A quiet window in each device's own time zone (`22:00`–`08:00`): an alert that falls in it waits for its end, or
/// is dropped, unless it is time-sensitive or critical. An app's setting, which a notification may replace or turn off.
package struct QuietHours: Codable, Sendable, Hashable {
    /// When the window begins and ends, `HH:MM` local time; an end before the start ends the next day.
    package var start: String
    package var end: String
    /// `wait` (sent at the window's end) or `drop` (not sent).
    package var action: String

    package init(start: String, end: String, action: String) {
        self.start = start
        self.end = end
        self.action = action
    }

    /// Whether an alert in the window is dropped rather than held.
    package var drops: Bool { action == "drop" }

    /// The minutes after midnight of an `HH:MM` text; `nil` when it is not one.
    package static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]),
            let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    /// When the window that holds `date` in `timeZone` ends; `nil` when `date` is outside the window.
    package func end(holding date: Date, in timeZone: TimeZone) -> Date? {
        guard let start = Self.minutes(start), let end = Self.minutes(end) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let now = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let inside = start < end ? (start <= now && now < end) : (now >= start || now < end)
        guard inside else { return nil }
        return calendar.nextDate(
            after: date, matching: DateComponents(hour: end / 60, minute: end % 60, second: 0),
            matchingPolicy: .nextTime)
    }

    /// The setting as stored: JSON.
    package var stored: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// A stored setting; `nil` for none (or one that does not parse).
    package init?(stored: String?) {
        guard let stored, let decoded = try? JSONDecoder().decode(Self.self, from: Data(stored.utf8)) else {
            return nil
        }
        self = decoded
    }
}
