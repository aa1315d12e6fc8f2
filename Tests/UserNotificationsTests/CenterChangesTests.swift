import Foundation
import Synchronization
import Testing
import UserNotifications

@Suite("A center tells its host when what the person sees changes")
struct CenterChangesTests {
    @Test("permission, scheduling, delivery, removal and the badge are changes; reading is not")
    func changesAndReads() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        var configuration = UNUserNotificationCenter.Configuration()
        configuration.dataStore = FileManager.default.temporaryDirectory.appendingPathComponent("changes-\(UUID())")
        let center = UNUserNotificationCenter(configuration: configuration, clock: clock, timer: clock)
        let changes = Atomic(0)
        center.observeChanges { changes.add(1, ordering: .relaxed) }
        func changed(_ step: () async throws -> Void) async rethrows -> Bool {
            let before = changes.load(ordering: .relaxed)
            try await step()
            return changes.load(ordering: .relaxed) > before
        }
        #expect(try await changed { _ = try await center.requestAuthorization(options: [.alert, .badge]) })
        let content = UNMutableNotificationContent()
        content.title = "Later"
        let request = UNNotificationRequest(
            identifier: "later", content: content,
            trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false))
        #expect(try await changed { try await center.add(request) })
        #expect(
            await changed {
                _ = await center.pendingNotificationRequests()
                _ = await center.deliveredNotifications()
                _ = await center.notificationSettings()
                _ = center.pendingNotificationRequestsWithFireDates()
            } == false, "reading changes nothing")
        clock.advance(by: .seconds(61))
        #expect(await changed { _ = await center.deliverDueNotifications() })
        #expect(await center.deliveredNotifications().count == 1)
        #expect(await changed { center.removeAllDeliveredNotifications() })
        #expect(try await changed { try await center.setBadgeCount(3) })
        #expect(await changed { center.removeAllPendingNotificationRequests() })
    }
}
