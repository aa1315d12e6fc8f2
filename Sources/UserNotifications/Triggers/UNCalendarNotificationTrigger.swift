public import Foundation

/// Fires at the next date matching the given components (only those given count); repeating ones at every match.
///
/// Components with a `timeZone` fire at that zone's instant, others in the device's zone. In a daylight-saving gap
/// the time moves forward (02:30 becomes 03:30); an ambiguous time fires at its first occurrence.
// Safety: immutable after creation.
open class UNCalendarNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The components a date must match.
    public let dateComponents: DateComponents

    /// A trigger that fires at the next date matching `dateComponents`.
    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        self.dateComponents = dateComponents
        super.init(repeats: repeats)
    }

    /// The next date after now that matches, or `nil` when none will.
    open func nextTriggerDate() -> Date? { nextDate(after: Date()) }

    /// The next date after `date` that matches, or `nil` when none will.
    public func nextDate(after date: Date) -> Date? {
        var calendar = dateComponents.calendar ?? Calendar(identifier: .gregorian)
        calendar.timeZone = dateComponents.timeZone ?? dateComponents.calendar?.timeZone ?? TimeZone.current
        var matching = dateComponents
        matching.calendar = nil
        matching.timeZone = nil
        if Self.isFullySpecified(matching) {
            guard let exact = calendar.date(from: matching) else { return nil }
            return exact > date ? exact : nil
        }
        let moved = calendar.nextDate(
            after: date,
            matching: matching,
            matchingPolicy: .nextTimePreservingSmallerComponents,
            repeatedTimePolicy: .first,
            direction: .forward
        )
        if let moved, Self.sameDay(moved, matching, calendar) { return moved }
        return calendar.nextDate(
            after: date,
            matching: matching,
            matchingPolicy: .strict,
            repeatedTimePolicy: .first,
            direction: .forward
        )
    }

    /// Whether `date` has the year, month, day and weekday asked for: only a daylight-saving gap moved its time.
    private static func sameDay(_ date: Date, _ wanted: DateComponents, _ calendar: Calendar) -> Bool {
        let found = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
        return (wanted.year.map { $0 == found.year } ?? true) && (wanted.month.map { $0 == found.month } ?? true)
            && (wanted.day.map { $0 == found.day } ?? true) && (wanted.weekday.map { $0 == found.weekday } ?? true)
    }

    override func nextFireDate(after date: Date, scheduledAt: Date) -> Date? { nextDate(after: date) }

    /// Whether the components name one instant (a year, month, day, hour, minute), so there is no "next" one.
    private static func isFullySpecified(_ components: DateComponents) -> Bool {
        components.year != nil && components.month != nil && components.day != nil && components.hour != nil
            && components.minute != nil
    }

    open override var description: String {
        "<UNCalendarNotificationTrigger dateComponents: \(dateComponents), repeats: \(repeats)>"
    }
}
