import Synchronization

/// What a batch withheld (leased, not written to APNs): the notifications cancelled meanwhile, whose withheld
/// deliveries are cancelled in the queue once the batch's results are recorded, and the apps paused meanwhile, whose
/// withheld deliveries wait in the queue (and are woken at once when the app was resumed before they were recorded).
/// Shared by the batch's tasks, one per app.
final class WithheldDeliveries: Sendable {
    private let state = Mutex<(notifications: Set<String>, apps: Set<String>)>(([], []))

    /// Deliveries of cancelled notification `notificationID` were withheld.
    func cancelled(_ notificationID: String) {
        state.withLock { _ = $0.notifications.insert(notificationID) }
    }

    /// Deliveries of app `appID` were withheld or parked because it was paused (by an operator, or by APNs refusing its
    /// credentials).
    func paused(_ appID: String) {
        state.withLock { _ = $0.apps.insert(appID) }
    }

    /// Every cancelled notification withheld so far.
    var notifications: Set<String> { state.withLock { $0.notifications } }
    /// Every paused app withheld so far.
    var apps: Set<String> { state.withLock { $0.apps } }
}
