import CoreLocation
import Foundation
import Testing
import UserNotifications

/// A delegate that records what it was asked and answers with fixed presentation options.
final class RecordingDelegate: UNUserNotificationCenterDelegate, @unchecked Sendable {
    var presented: [String] = []
    var responses: [UNNotificationResponse] = []
    let options: UNNotificationPresentationOptions

    init(options: UNNotificationPresentationOptions) {
        self.options = options
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        presented.append(notification.request.identifier)
        completionHandler(options)
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping () -> Void
    ) {
        responses.append(response)
        completionHandler()
    }
}

@Suite("The notification center")
struct CenterTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func request(_ identifier: String, title: String = "t", after seconds: TimeInterval? = nil, badge: Int? = nil)
        -> UNNotificationRequest
    {
        let content = UNMutableNotificationContent()
        content.title = title
        content.badge = badge.map { NSNumber(value: $0) }
        let trigger = seconds.map { UNTimeIntervalNotificationTrigger(timeInterval: $0, repeats: false) }
        return UNNotificationRequest(identifier: identifier, content: content, trigger: trigger)
    }

    func newCenter(_ configure: (inout UNUserNotificationCenter.Configuration) -> Void = { _ in }) -> (
        UNUserNotificationCenter, ManualClock
    ) {
        let clock = ManualClock(start: start)
        var configuration = UNUserNotificationCenter.Configuration()
        configuration.dataStore = temporaryFolder()
        configure(&configuration)
        return (UNUserNotificationCenter(configuration: configuration, clock: clock, timer: clock), clock)
    }

    @Test("authorization: not determined, then the person's answer; later requests do not prompt again")
    func authorization() async throws {
        let (center, _) = newCenter()
        #expect(await center.notificationSettings().authorizationStatus == .notDetermined)
        #expect(await center.notificationSettings().alertSetting == .notSupported)
        #expect(try await center.requestAuthorization(options: [.alert, .sound, .badge]))
        let settings = await center.notificationSettings()
        #expect(settings.authorizationStatus == .authorized)
        #expect(settings.alertSetting == .enabled)
        #expect(settings.alertStyle == .banner)
        center.authorizationAnswer = .deny
        #expect(try await center.requestAuthorization(options: [.alert]))
    }

    @Test("denied: settings disabled, and add fails with notificationsNotAllowed")
    func denied() async throws {
        let (center, _) = newCenter()
        center.authorizationAnswer = .deny
        #expect(try await center.requestAuthorization(options: [.alert]) == false)
        let settings = await center.notificationSettings()
        #expect(settings.authorizationStatus == .denied)
        #expect(settings.alertSetting == .disabled)
        #expect(settings.alertStyle == UNAlertStyle.none)
        await #expect(throws: UNError(.notificationsNotAllowed)) { try await center.add(request("a", after: 5)) }
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("the observed iOS 18 behaviour is a switch: add succeeds but keeps nothing")
    func deniedSilently() async throws {
        let (center, _) = newCenter { $0.unauthorizedAdd = .dropSilently }
        try await center.add(request("a", after: 5))
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("provisional authorization is granted without a prompt and delivers quietly to the list")
    func provisional() async throws {
        let (center, _) = newCenter()
        center.authorizationAnswer = .deny
        #expect(try await center.requestAuthorization(options: [.alert, .provisional]))
        #expect(await center.notificationSettings().authorizationStatus == .provisional)
        try await center.add(request("quiet", badge: 3))
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["quiet"])
        #expect(center.badgeCount == 0)
    }

    @Test("the same identifier replaces a pending request")
    func replacePending() async throws {
        let center = try await authorizedCenter()
        try await center.add(request("same", title: "first", after: 60))
        try await center.add(request("same", title: "second", after: 120))
        let pending = await center.pendingNotificationRequests()
        #expect(pending.count == 1)
        #expect(pending.first?.content.title == "second")
    }

    @Test("the same identifier alerts again and replaces a delivered notification, on top")
    func replaceDelivered() async throws {
        let center = try await authorizedCenter()
        try await center.add(request("update", title: "new"))
        try await center.add(request("other"))
        try await center.add(request("update", title: "updated"))
        let delivered = await center.deliveredNotifications()
        #expect(delivered.map(\.request.identifier) == ["update", "other"])
        #expect(delivered.first?.request.content.title == "updated")
    }

    @Test("at most 64 pending: the most recently added stay by default")
    func pendingLimitRecent() async throws {
        let center = try await authorizedCenter()
        for index in 0..<100 { try await center.add(request("r\(index)", after: TimeInterval(1000 - index))) }
        let pending = await center.pendingNotificationRequests()
        #expect(pending.count == 64)
        #expect(pending.first?.identifier == "r36")
        #expect(pending.last?.identifier == "r99")
    }

    @Test("at most 64 pending: or the soonest firing, as Apple's older documentation says")
    func pendingLimitSoonest() async throws {
        let (center, _) = newCenter { $0.pendingRetention = .soonestFiring }
        _ = try await center.requestAuthorization(options: [.alert])
        for index in 0..<100 { try await center.add(request("r\(index)", after: TimeInterval(100 + index))) }
        let identifiers = Set(await center.pendingNotificationRequests().map(\.identifier))
        #expect(identifiers == Set((0..<64).map { "r\($0)" }))
    }

    @Test("triggers fire when the clock reaches them; repeating ones stay pending")
    func firing() async throws {
        let clock = ManualClock(start: start)
        let center = try await authorizedCenter(clock: clock)
        try await center.add(request("once", after: 5))
        let repeating = UNNotificationRequest(
            identifier: "every minute",
            content: UNMutableNotificationContent(),
            trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: true)
        )
        try await center.add(repeating)
        clock.advance(by: .seconds(4))
        #expect(await center.deliverDueNotifications().isEmpty)
        clock.advance(by: .seconds(1))
        let first = await center.deliverDueNotifications()
        #expect(first.map(\.notification.request.identifier) == ["once"])
        #expect(first.first?.notification.date == start.addingTimeInterval(5))
        clock.advance(by: .seconds(55))
        #expect(await center.deliverDueNotifications().map(\.notification.request.identifier) == ["every minute"])
        clock.advance(by: .seconds(60))
        #expect(await center.deliverDueNotifications().map(\.notification.date) == [start.addingTimeInterval(120)])
        #expect(await center.pendingNotificationRequests().map(\.identifier) == ["every minute"])
    }

    @Test("a one-shot calendar date in the past is accepted and not kept")
    func pastCalendar() async throws {
        let center = try await authorizedCenter()
        var components = DateComponents()
        (components.year, components.month, components.day, components.hour, components.minute) = (2020, 1, 1, 0, 0)
        let past = UNNotificationRequest(
            identifier: "past",
            content: UNMutableNotificationContent(),
            trigger: UNCalendarNotificationTrigger(dateMatching: components, repeats: false)
        )
        try await center.add(past)
        #expect(await center.pendingNotificationRequests().isEmpty)
    }

    @Test("removals: pending and delivered, by identifier and all; unknown identifiers are ignored")
    func removals() async throws {
        let center = try await authorizedCenter()
        for id in ["a", "b", "c"] { try await center.add(request(id, after: 60)) }
        center.removePendingNotificationRequests(withIdentifiers: ["b", "nope"])
        #expect(await center.pendingNotificationRequests().map(\.identifier) == ["a", "c"])
        center.removeAllPendingNotificationRequests()
        #expect(await center.pendingNotificationRequests().isEmpty)
        for id in ["x", "y"] { try await center.add(request(id)) }
        center.removeDeliveredNotifications(withIdentifiers: ["x", "nope"])
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["y"])
        center.removeAllDeliveredNotifications()
        #expect(await center.deliveredNotifications().isEmpty)
    }

    @Test("in the background the badge is set; in the foreground the delegate decides")
    func presentation() async throws {
        let center = try await authorizedCenter()
        try await center.add(request("bg", badge: 4))
        #expect(center.badgeCount == 4)
        let delegate = RecordingDelegate(options: [.banner, .sound])
        center.delegate = delegate
        center.isAppInForeground = true
        try await center.add(request("fg", badge: 9))
        #expect(delegate.presented == ["fg"])
        #expect(center.badgeCount == 4)
        #expect(await center.deliveredNotifications().map(\.request.identifier) == ["bg"])
        center.delegate = nil
        let outcome = await center.deliverRemoteNotification(
            try pushRequest(#"{"aps":{"alert":"hi"}}"#, identifier: "nodelegate"))
        #expect(outcome.options.isEmpty)
        #expect(!outcome.isInNotificationCenter)
    }

    @Test("badge counts: set, and a negative one is badgeInputInvalid")
    func badgeCount() async throws {
        let center = try await authorizedCenter()
        try await center.setBadgeCount(7)
        #expect(center.badgeCount == 7)
        await #expect(throws: UNError(.badgeInputInvalid)) { try await center.setBadgeCount(-1) }
    }

    @Test("location triggers fire on entry and exit as the region asks")
    func location() async throws {
        let center = try await authorizedCenter()
        let office = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: 31.23, longitude: 121.47), radius: 200, identifier: "office")
        office.notifyOnEntry = true
        office.notifyOnExit = false
        try await center.add(
            UNNotificationRequest(
                identifier: "arrive", content: UNMutableNotificationContent(),
                trigger: UNLocationNotificationTrigger(region: office, repeats: true)))
        #expect(await center.updateLocation(CLLocationCoordinate2D(latitude: 31.30, longitude: 121.47)).isEmpty)
        #expect(await center.updateLocation(CLLocationCoordinate2D(latitude: 31.2301, longitude: 121.4701)).count == 1)
        #expect(await center.updateLocation(CLLocationCoordinate2D(latitude: 31.30, longitude: 121.47)).isEmpty)
        #expect(await center.updateLocation(CLLocationCoordinate2D(latitude: 31.23, longitude: 121.47)).count == 1)
        #expect(await center.pendingNotificationRequests().count == 1)
    }

    @Test("categories are registered and replaced as a set")
    func categories() async throws {
        let center = try await authorizedCenter()
        let reply = UNTextInputNotificationAction(
            identifier: "reply", title: "Reply", options: [], textInputButtonTitle: "Send", textInputPlaceholder: "…")
        let category = UNNotificationCategory(
            identifier: "chat", actions: [reply], intentIdentifiers: [], options: [.customDismissAction])
        center.setNotificationCategories([category])
        #expect(await center.notificationCategories() == [category])
        center.setNotificationCategories([])
        #expect(await center.notificationCategories().isEmpty)
    }
}

/// A delegate that never calls its completion handler (it keeps it: a handler dropped unanswered is a programming
/// error the Swift runtime reports as a leaked continuation).
final class SilentDelegate: UNUserNotificationCenterDelegate, @unchecked Sendable {
    // Safety: the center calls willPresent once per notification, and the test delivers one.
    private var held: [(UNNotificationPresentationOptions) -> Void] = []

    func userNotificationCenter(
        _ center: UNUserNotificationCenter,
        willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        held.append(completionHandler)
    }
}

@Suite("Delegate deadlines")
struct DelegateDeadlineTests {
    @Test("a delegate that never answers willPresent: the notification is delivered unpresented at the deadline")
    func silentDelegate() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        let center = try await authorizedCenter(clock: clock)
        let delegate = SilentDelegate()
        center.delegate = delegate
        center.isAppInForeground = true
        let request = try pushRequest(#"{"aps":{"alert":"hi"}}"#, identifier: "x")
        async let outcome = center.deliverRemoteNotification(request)
        await clock.waitForSleepers(1)
        clock.advance(by: center.configuration.delegateDeadline)
        let result = await outcome
        #expect(result.options.isEmpty)
        #expect(!result.isInNotificationCenter)
    }
}
