import APNSCore
import CoreLocation
import Foundation
import UserNotifications

/// A local notification waiting for its trigger, as the device API (`GET /pending`) and the console show it.
package struct PendingSnapshot: Sendable, Hashable, Encodable {
    package let bundleID: String
    package let identifier: String
    package let title: String
    package let subtitle: String
    package let body: String
    package let categoryIdentifier: String
    package let threadIdentifier: String
    package let trigger: Trigger
    /// When it fires next (ISO 8601); absent for a location trigger.
    package let nextFireDate: String?

    /// The trigger, by kind: `timeInterval` (with `timeInterval`), `calendar` (with `dateMatching`) or `location`
    /// (with `region`).
    package struct Trigger: Sendable, Hashable, Encodable {
        package let kind: String
        package let repeats: Bool
        package let timeInterval: Double?
        /// The calendar components given, by name (`year`, `month`, `day`, `weekday`, `hour`, `minute`, `second`).
        package let dateMatching: [String: Int]?
        package let region: Region?
    }

    /// A circular region.
    package struct Region: Sendable, Hashable, Encodable {
        package let identifier: String
        package let latitude: Double
        package let longitude: Double
        package let radius: Double
        package let notifyOnEntry: Bool
        package let notifyOnExit: Bool
    }

    init(bundleID: String, request: UNNotificationRequest, nextFire: Date?) {
        let content = request.content
        self.bundleID = bundleID
        identifier = request.identifier
        title = content.title
        subtitle = content.subtitle
        body = content.body
        categoryIdentifier = content.categoryIdentifier
        threadIdentifier = content.threadIdentifier
        trigger = Self.trigger(request.trigger)
        nextFireDate = nextFire.map(\.iso8601Milliseconds)
    }

    private static func trigger(_ trigger: UNNotificationTrigger?) -> Trigger {
        switch trigger {
        case let interval as UNTimeIntervalNotificationTrigger:
            return Trigger(
                kind: "timeInterval", repeats: interval.repeats, timeInterval: interval.timeInterval,
                dateMatching: nil, region: nil)
        case let calendar as UNCalendarNotificationTrigger:
            let components = calendar.dateComponents
            let named: [(String, Int?)] = [
                ("year", components.year), ("month", components.month), ("day", components.day),
                ("weekday", components.weekday), ("hour", components.hour), ("minute", components.minute),
                ("second", components.second),
            ]
            return Trigger(
                kind: "calendar", repeats: calendar.repeats, timeInterval: nil,
                dateMatching: Dictionary(
                    uniqueKeysWithValues: named.compactMap { name, value in value.map { (name, $0) } }),
                region: nil)
        case let location as UNLocationNotificationTrigger:
            let circle = location.region as? CLCircularRegion
            return Trigger(
                kind: "location", repeats: location.repeats, timeInterval: nil, dateMatching: nil,
                region: circle.map {
                    Region(
                        identifier: $0.identifier, latitude: $0.center.latitude, longitude: $0.center.longitude,
                        radius: $0.radius, notifyOnEntry: $0.notifyOnEntry, notifyOnExit: $0.notifyOnExit)
                })
        default:
            return Trigger(
                kind: "other", repeats: trigger?.repeats ?? false, timeInterval: nil, dateMatching: nil, region: nil)
        }
    }
}
