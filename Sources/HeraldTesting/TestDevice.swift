public import DeviceSimulator
import Foundation

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
    /// The device itself: its notification centers, responses, activities.
    public let device: SimulatedDevice
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

    /// What Notification Center shows now, newest first.
    public func notifications() async -> [NotificationSnapshot] {
        await device.notifications()
    }

    /// Disconnects the device.
    public func stop() async {
        await device.stop()
    }
}
