import Foundation
import UserNotifications

/// A fresh folder for one test's files.
func temporaryFolder() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("un-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A copy of a fixture in a fresh folder (attachments are moved when scheduled, so tests never use the original).
func fixtureCopy(_ name: String) -> URL {
    let source = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)!
    let copy = temporaryFolder().appendingPathComponent(name)
    try? FileManager.default.copyItem(at: source, to: copy)
    return copy
}

/// The URL of a fixture, read-only.
func fixtureURL(_ name: String) -> URL {
    Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)!
}

/// A center for tests: its own attachment store and a manual clock, authorized for alert, sound and badge.
func authorizedCenter(clock: ManualClock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000)))
    async throws -> UNUserNotificationCenter
{
    var configuration = UNUserNotificationCenter.Configuration()
    configuration.dataStore = temporaryFolder()
    let center = UNUserNotificationCenter(configuration: configuration, clock: clock, timer: clock)
    _ = try await center.requestAuthorization(options: [.alert, .sound, .badge])
    return center
}

/// A remote request from payload text.
func pushRequest(_ payload: String, identifier: String = UUID().uuidString) throws -> UNNotificationRequest {
    try UNNotificationRequest(identifier: identifier, apnsPayload: Data(payload.utf8))
}
