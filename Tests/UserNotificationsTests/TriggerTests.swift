import Foundation
import Testing
import UserNotifications

@Suite("Triggers")
struct TriggerTests {
    static let newYork = TimeZone(identifier: "America/New_York")!

    func date(_ text: String, _ zone: TimeZone = newYork) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.date(from: text)!
    }

    func components(_ build: (inout DateComponents) -> Void) -> DateComponents {
        var components = DateComponents()
        components.timeZone = Self.newYork
        build(&components)
        return components
    }

    @Test("only the components given are matched: hour 8 is the next 08:00")
    func nextEightOClock() {
        let trigger = UNCalendarNotificationTrigger(dateMatching: components { $0.hour = 8 }, repeats: true)
        #expect(trigger.nextDate(after: date("2026-11-21 09:00:00")) == date("2026-11-22 08:00:00"))
        #expect(trigger.nextDate(after: date("2026-11-21 07:59:00")) == date("2026-11-21 08:00:00"))
    }

    @Test("weekday 3 at 14:00 is every Tuesday at 14:00")
    func weekday() {
        let trigger = UNCalendarNotificationTrigger(
            dateMatching: components {
                $0.weekday = 3; $0.hour = 14; $0.minute = 0
            },
            repeats: true
        )
        let next = trigger.nextDate(after: date("2026-11-21 12:00:00"))
        #expect(next == date("2026-11-24 14:00:00"))
        #expect(trigger.nextDate(after: next!) == date("2026-12-01 14:00:00"))
    }

    @Test("a time in the spring-forward gap moves forward: 02:30 becomes 03:30")
    func daylightSavingGap() {
        let trigger = UNCalendarNotificationTrigger(
            dateMatching: components {
                $0.month = 3; $0.day = 8; $0.hour = 2; $0.minute = 30
            },
            repeats: false
        )
        #expect(trigger.nextDate(after: date("2026-03-07 12:00:00")) == date("2026-03-08 03:30:00"))
    }

    @Test("an ambiguous fall-back time fires at its first occurrence")
    func daylightSavingRepeat() {
        let trigger = UNCalendarNotificationTrigger(
            dateMatching: components {
                $0.month = 11; $0.day = 1; $0.hour = 1; $0.minute = 30
            },
            repeats: false
        )
        let fired = trigger.nextDate(after: date("2026-10-31 12:00:00"))
        #expect(fired == Date(timeIntervalSince1970: 1_793_511_000))
        #expect(Self.newYork.isDaylightSavingTime(for: fired!))
    }

    @Test("February 29 next comes in the next leap year")
    func leapDay() {
        let trigger = UNCalendarNotificationTrigger(
            dateMatching: components {
                $0.month = 2; $0.day = 29; $0.hour = 9
            }, repeats: true)
        #expect(trigger.nextDate(after: date("2026-03-01 00:00:00")) == date("2028-02-29 09:00:00"))
    }

    @Test("components with a time zone fire at that zone's instant")
    func explicitZone() {
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        var components = DateComponents()
        components.timeZone = tokyo
        components.hour = 7
        let trigger = UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
        #expect(trigger.nextDate(after: date("2026-11-21 00:00:00", tokyo)) == date("2026-11-21 07:00:00", tokyo))
    }

    @Test("a full date in the past has no next date")
    func pastDate() {
        let trigger = UNCalendarNotificationTrigger(
            dateMatching: components {
                $0.year = 2020; $0.month = 1; $0.day = 1; $0.hour = 0; $0.minute = 0
            },
            repeats: false
        )
        #expect(trigger.nextDate(after: date("2026-01-01 00:00:00")) == nil)
        #expect(trigger.nextTriggerDate() == nil)
    }

    @Test("time intervals: positive, and at least 60 seconds when repeating")
    func timeIntervalRules() async {
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 5, repeats: false)
        #expect(trigger.timeInterval == 5)
        #expect(!trigger.repeats)
        #expect(UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: true).repeats)
        await #expect(processExitsWith: .failure) {
            _ = UNTimeIntervalNotificationTrigger(timeInterval: 0, repeats: false)
        }
        await #expect(processExitsWith: .failure) {
            _ = UNTimeIntervalNotificationTrigger(timeInterval: -1, repeats: false)
        }
        await #expect(processExitsWith: .failure) {
            _ = UNTimeIntervalNotificationTrigger(timeInterval: 59, repeats: true)
        }
    }
}
