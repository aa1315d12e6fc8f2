public import CoreLocation
import Foundation
import Synchronization

/// What happened when a notification was delivered.
public struct PresentationOutcome: Sendable {
    /// The delivered notification.
    public let notification: UNNotification
    /// How it was presented (what the delegate chose in the foreground; the authorized defaults otherwise).
    public let options: UNNotificationPresentationOptions
    /// Whether it is in Notification Center (``UNUserNotificationCenter/deliveredNotifications()``).
    public let isInNotificationCenter: Bool
}

extension UNUserNotificationCenter {
    /// Delivers a remote notification the device received (after its service extension ran): moves its attachments
    /// into the store, asks the delegate in the foreground, sets the badge and adds it to Notification Center,
    /// replacing a delivered notification with the same identifier.
    public func deliverRemoteNotification(_ request: UNNotificationRequest) async -> PresentationOutcome {
        let stored = (try? attachmentStore.movingAttachments(of: request)) ?? request.droppingAttachments()
        return await present(stored, at: clock.currentDate)
    }

    /// Delivers every pending request whose trigger date has come, by the center's clock.
    ///
    /// - Returns: the deliveries, in firing order.
    @discardableResult
    public func deliverDueNotifications() async -> [PresentationOutcome] {
        var outcomes: [PresentationOutcome] = []
        while let (request, date) = takeNextDue() {
            outcomes.append(await present(request, at: date))
        }
        return outcomes
    }

    /// Reports the device's position: location triggers whose region was entered or left fire.
    @discardableResult
    public func updateLocation(_ coordinate: CLLocationCoordinate2D) async -> [PresentationOutcome] {
        let fired = state.withLock { state -> [UNNotificationRequest] in
            var fired: [UNNotificationRequest] = []
            for entry in state.pending {
                guard let trigger = entry.request.trigger as? UNLocationNotificationTrigger else { continue }
                let id = entry.request.identifier
                let inside = trigger.region.contains(coordinate)
                defer { state.inside[id] = inside }
                guard let wasInside = state.inside[id], wasInside != inside else { continue }
                if (inside && trigger.region.notifyOnEntry) || (!inside && trigger.region.notifyOnExit) {
                    fired.append(entry.request)
                }
            }
            let ended = Set(fired.filter { !$0.trigger!.repeats }.map(\.identifier))
            state.pending.removeAll { ended.contains($0.request.identifier) }
            return fired
        }
        var outcomes: [PresentationOutcome] = []
        for request in fired { outcomes.append(await present(request, at: clock.currentDate)) }
        return outcomes
    }

    private func takeNextDue() -> (UNNotificationRequest, Date)? {
        let now = clock.currentDate
        return state.withLock { state in
            guard
                let index = state.pending.indices.filter({ state.pending[$0].nextFire.map { $0 <= now } ?? false })
                    .min(by: { state.pending[$0].nextFire! < state.pending[$1].nextFire! })
            else { return nil }
            let entry = state.pending[index]
            let fireDate = entry.nextFire!
            if let trigger = entry.request.trigger, trigger.repeats {
                state.pending[index].nextFire = trigger.nextFireDate(
                    after: max(now, fireDate), scheduledAt: entry.addedAt)
            } else {
                state.pending.remove(at: index)
            }
            return (entry.request, fireDate)
        }
    }

    /// Presents a notification as iOS does in the app's state, and records it.
    func present(_ request: UNNotificationRequest, at date: Date) async -> PresentationOutcome {
        let notification = UNNotification(request: request, date: date)
        let (foreground, status, granted, delegate) = state.withLock {
            ($0.foreground, $0.status, $0.granted, $0.delegate.value)
        }
        var options: UNNotificationPresentationOptions
        if foreground, let delegate {
            options = await askDelegate(delegate, toPresent: notification)
        } else if foreground {
            options = []
        } else if status == .provisional {
            options = [.list]
        } else {
            options = [.banner, .list, .sound, .badge]
        }
        options = Self.allowed(options, status: status, granted: granted)
        let stays = options.staysInList
        let replaced = state.withLock { state -> [UNNotification] in
            let replaced = state.delivered.filter { $0.request.identifier == request.identifier }
            state.delivered.removeAll { $0.request.identifier == request.identifier }
            if stays { state.delivered.insert(notification, at: 0) }
            if options.contains(.badge), let badge = request.content.badge { state.badge = badge.intValue }
            return replaced
        }
        let kept = Set(request.content.attachments.map(\.url))
        attachmentStore.remove(replaced.flatMap(\.request.content.attachments).filter { !kept.contains($0.url) })
        return PresentationOutcome(notification: notification, options: options, isInNotificationCenter: stays)
    }

    /// The delegate's presentation options, or none when it does not answer before the deadline.
    private func askDelegate(
        _ delegate: any UNUserNotificationCenterDelegate,
        toPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        let answer = FirstAnswer<UNNotificationPresentationOptions>()
        let asked = DelegateBox(delegate)
        let deadline = Task { [timer, configuration] in
            try await timer.sleep(for: configuration.delegateDeadline)
            answer.give([])
        }
        Task {
            guard let delegate = asked.value else { return answer.give([]) }
            answer.give(await delegate.userNotificationCenter(self, willPresent: notification))
        }
        let options = await answer.value()
        deadline.cancel()
        return options
    }

    /// Presentation limited to what the person allowed.
    private static func allowed(
        _ options: UNNotificationPresentationOptions,
        status: UNAuthorizationStatus,
        granted: UNAuthorizationOptions
    ) -> UNNotificationPresentationOptions {
        guard [.authorized, .provisional, .ephemeral].contains(status) else { return [] }
        var allowed = options
        if status == .provisional { allowed.subtract([.banner, .alert, .sound]) }
        if !granted.contains(.alert), status != .provisional { allowed.subtract([.banner, .alert, .list]) }
        if !granted.contains(.sound) { allowed.remove(.sound) }
        if !granted.contains(.badge) { allowed.remove(.badge) }
        return allowed
    }
}

extension UNNotificationRequest {
    func droppingAttachments() -> UNNotificationRequest {
        let content = content.mutableCopy() as! UNMutableNotificationContent
        content.attachments = []
        return UNNotificationRequest(identifier: identifier, content: content, trigger: trigger)
    }
}
