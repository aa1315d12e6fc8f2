import Foundation
import HeraldTime
import Logging
import ProviderStorage

/// Daily sends at a local time (a 07:00 calendar trigger, done on the server): for every daily notification
/// it queues each targeted device's next occurrence at that time in the device's own time zone (UTC when it has
/// none), once per local day.
struct DailyScheduler: Sendable {
    let store: any ProviderStore
    let engine: DeliveryEngine
    let failures: FailureReporter
    /// The provider's time (``PushProviderService/Configuration/clock``).
    let clock: any WallClock
    var interval: Duration = .seconds(30)

    func run() async {
        while !Task.isCancelled {
            let now = clock.currentDate
            await scheduleDue(now: now)
            try? await clock.sleep(until: now.adding(interval))
        }
    }

    /// Queues the next occurrence of every daily notification (or only `notificationID`'s) for every targeted
    /// device; an occurrence already queued is not queued again.
    func scheduleDue(now: Date, only notificationID: String? = nil) async {
        do {
            for notification in try await store.dailyNotifications()
            where notificationID == nil || notification.id == notificationID {
                guard let text = notification.dailyAt, let time = try? DailyTime(parsing: text),
                    let target = try? NotificationTarget.parse(stored: notification.target)
                else { continue }
                let tokens = try await store.targetTokens(
                    appID: notification.appID, target: target, requireKey: notification.encrypted != nil)
                let zones = try await store.timeZones(appID: notification.appID, tokens: tokens)
                var byDay: [String: [(String, Date)]] = [:]
                let start = max(now, notification.sendAt)
                for token in tokens {
                    let zone = zones[token].flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
                    let next = time.next(after: start, in: zone)
                    var calendar = Calendar(identifier: .gregorian)
                    calendar.timeZone = zone
                    let day = calendar.dateComponents([.year, .month, .day], from: next)
                    let key = String(format: "%04d-%02d-%02d", day.year ?? 0, day.month ?? 0, day.day ?? 0)
                    byDay[key, default: []].append((token, next))
                }
                var queued = 0
                for (day, times) in byDay {
                    queued += try await store.insertOccurrences(
                        notificationID: notification.id, appID: notification.appID, occurrence: day, times: times)
                }
                if queued > 0 {
                    failures.logger.info(
                        "daily occurrence queued",
                        metadata: ["notification": "\(notification.id)", "count": "\(queued)"])
                    engine.notify()
                }
            }
        } catch {
            failures.report(.schedule, "cannot queue daily notifications", error: error)
        }
    }
}
