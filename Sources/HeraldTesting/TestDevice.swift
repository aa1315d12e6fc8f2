import CoreLocation
public import DeviceSimulator
import Foundation
public import UserNotifications

/// A simulated iPhone connected to a ``LocalAPNs``: its apps have device tokens, every push runs through the
/// UserNotifications pipeline (service extension, attachments, presentation), and a test awaits what it showed.
///
/// ```swift
/// let device = try await apns.startDevice(apps: [manifest])
/// let token = try device.token(for: "com.example.app")
/// // ... send a push to `token` with any HTTP/2 client ...
/// let shown = try await device.next(.displayed)
/// ```
public final class TestDevice: Sendable {
    /// The device itself: its notification centers, responses, activities (Herald's own tests; a user's test goes
    /// through the methods below, which keep their names when the simulator's change).
    package let device: SimulatedDevice
    private let log: DeviceEventLog

    init(_ device: SimulatedDevice) {
        self.device = device
        log = DeviceEventLog(device)
    }

    /// The device token (hex) the app `bundleID` registered with.
    ///
    /// - Throws: ``HeraldTestingError`` when no such app is installed.
    public func token(for bundleID: String) throws -> String {
        guard let token = device.installedApps.first(where: { $0.bundleID == bundleID })?.token else {
            let installed = device.installedApps.map(\.bundleID).joined(separator: ", ")
            throw HeraldTestingError("no app \(bundleID) with a token on this device; installed: \(installed)")
        }
        return token
    }

    /// The next event of `kind` matching `predicate` (before or after this call): `.delivered` when a push reached
    /// the app, `.displayed` when it was shown, `.response` when someone acted on it, `.outcome` when it ended
    /// otherwise (not authorized, the extension timed out, ...).
    ///
    /// - Throws: ``HeraldTestingError`` when none comes within `within`.
    public func next(
        _ kind: DeviceEvent.Kind, within: Duration = .seconds(20),
        where predicate: @escaping @Sendable (DeviceEvent) -> Bool = { _ in true }
    ) async throws -> DeviceEvent {
        try await log.next(kind, within: within, where: predicate)
    }

    /// The app `bundleID`'s notification center: what iOS gives it as `UNUserNotificationCenter.current()` (hand it to
    /// your app's code, set its delegate); `nil` when no such app is installed.
    public func notificationCenter(of bundleID: String) -> UNUserNotificationCenter? {
        device.notificationCenter(of: bundleID)
    }

    /// What Notification Center shows now, newest first.
    public func notifications() async -> [NotificationSnapshot] {
        await device.notifications()
    }

    /// Acts on the shown notification `id` (``NotificationSnapshot/id``) as the person would: `action` is
    /// `default` (a tap), `dismiss`, or one of its category's action identifiers; `text` answers a text-input action.
    /// The app's delegate gets the response, and ``next(_:within:where:)`` sees a `.response` event.
    ///
    /// - Throws: ``HeraldTestingError`` when there is no such notification or action.
    public func respond(to id: String, action: String, text: String? = nil) async throws {
        do {
            try await device.respond(to: id, action: action, text: text)
        } catch {
            throw HeraldTestingError("cannot respond to \(id): \(error.message)")
        }
    }

    /// Moves the device to `latitude`, `longitude`: location triggers of its apps fire as they would on an iPhone.
    public func move(latitude: Double, longitude: Double) async {
        await device.updateLocation(CLLocationCoordinate2D(latitude: latitude, longitude: longitude))
    }

    /// Disconnects the device.
    public func stop() async {
        await device.stop()
    }
}
