import CoreLocation
import Foundation
import UserNotifications

/// `POST /apps/{bundleID}/notifications`: a local notification an app schedules (docs/devices.md).
struct LocalNotificationBody: Decodable {
    var identifier: String?
    var title: String?
    var subtitle: String?
    var body: String?
    var badge: Int?
    var sound: String?
    var categoryIdentifier: String?
    var threadIdentifier: String?
    var userInfo: [String: String]?
    var trigger: Trigger?

    /// One of the three triggers; none delivers at once (as a nil trigger does on iOS).
    struct Trigger: Decodable {
        var timeInterval: Double?
        var dateMatching: DateMatching?
        var region: Region?
        var repeats: Bool?
    }

    /// Calendar fields to match, as `DateComponents`.
    struct DateMatching: Decodable {
        var year: Int?
        var month: Int?
        var day: Int?
        var weekday: Int?
        var hour: Int?
        var minute: Int?
        var second: Int?
    }

    /// A circular region.
    struct Region: Decodable {
        var latitude: Double
        var longitude: Double
        var radius: Double
        var identifier: String?
        var notifyOnEntry: Bool?
        var notifyOnExit: Bool?
    }

    /// The request the app would make.
    ///
    /// - Throws: ``DeviceError`` when the trigger names more than one kind.
    func makeRequest() throws(DeviceError) -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        content.title = title ?? ""
        content.subtitle = subtitle ?? ""
        content.body = body ?? ""
        content.badge = badge.map { NSNumber(value: $0) }
        content.sound = sound.map {
            $0 == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName($0))
        }
        content.categoryIdentifier = categoryIdentifier ?? ""
        content.threadIdentifier = threadIdentifier ?? ""
        content.userInfo = userInfo ?? [:]
        return UNNotificationRequest(
            identifier: identifier ?? UUID().uuidString, content: content, trigger: try makeTrigger())
    }

    private func makeTrigger() throws(DeviceError) -> UNNotificationTrigger? {
        guard let trigger else { return nil }
        let repeats = trigger.repeats ?? false
        let kinds = [trigger.timeInterval != nil, trigger.dateMatching != nil, trigger.region != nil].filter { $0 }
        guard kinds.count == 1 else {
            throw DeviceError("trigger: give exactly one of timeInterval, dateMatching or region")
        }
        if let seconds = trigger.timeInterval {
            guard seconds > 0, !repeats || seconds >= 60 else {
                throw DeviceError("trigger.timeInterval: more than 0 seconds, and at least 60 when it repeats")
            }
            return UNTimeIntervalNotificationTrigger(timeInterval: seconds, repeats: repeats)
        }
        if let match = trigger.dateMatching {
            let components = DateComponents(
                year: match.year, month: match.month, day: match.day, hour: match.hour, minute: match.minute,
                second: match.second, weekday: match.weekday)
            return UNCalendarNotificationTrigger(dateMatching: components, repeats: repeats)
        }
        let region = trigger.region!
        let circle = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: region.latitude, longitude: region.longitude),
            radius: region.radius, identifier: region.identifier ?? UUID().uuidString)
        circle.notifyOnEntry = region.notifyOnEntry ?? true
        circle.notifyOnExit = region.notifyOnExit ?? true
        return UNLocationNotificationTrigger(region: circle, repeats: repeats)
    }
}
