public import Foundation
import Synchronization

extension UNUserNotificationCenter {
    /// Schedules a local notification; one with no trigger is delivered at once. A request with the identifier of a
    /// pending one replaces it.
    ///
    /// - Throws: ``UNError`` `notificationsNotAllowed` when the app is not authorized (see
    ///   ``Configuration/unauthorizedAdd``), or an attachment error when an attachment cannot be moved into the store.
    public func add(_ request: UNNotificationRequest) async throws {
        guard isAuthorized else {
            if configuration.unauthorizedAdd == .dropSilently { return }
            throw UNError(.notificationsNotAllowed, "the app is not authorized to schedule notifications")
        }
        let request = try attachmentStore.movingAttachments(of: request)
        let now = clock.currentDate
        guard let trigger = request.trigger else {
            _ = await present(request, at: now)
            return
        }
        let nextFire = trigger.nextFireDate(after: now, scheduledAt: now)
        if nextFire == nil, !(trigger is UNLocationNotificationTrigger) { return }
        state.withLock { state in
            state.pending.removeAll { $0.request.identifier == request.identifier }
            state.inside[request.identifier] = nil
            state.pending.append(PendingEntry(request: request, addedAt: now, nextFire: nextFire))
            trimPending(&state)
        }
    }

    /// Schedules a local notification and reports the outcome to `completionHandler`.
    public func add(
        _ request: UNNotificationRequest,
        withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        Task {
            do {
                try await add(request)
                completionHandler?(nil)
            } catch {
                completionHandler?(error)
            }
        }
    }

    private func trimPending(_ state: inout State) {
        let excess = state.pending.count - configuration.pendingLimit
        guard excess > 0 else { return }
        switch configuration.pendingRetention {
        case .mostRecentlyAdded:
            state.pending.removeFirst(excess)
        case .soonestFiring:
            let latest = state.pending.indices.sorted {
                (state.pending[$0].nextFire ?? .distantFuture) > (state.pending[$1].nextFire ?? .distantFuture)
            }
            let drop = Set(latest.prefix(excess))
            state.pending = state.pending.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
        }
    }

    /// The requests waiting for their trigger, in the order added.
    public func pendingNotificationRequests() async -> [UNNotificationRequest] {
        state.withLock { $0.pending.map(\.request) }
    }

    /// The requests waiting for their trigger, in the order added, each with the date it will fire next by the
    /// center's clock (`nil` for a location trigger, which waits for the device to cross its region). Not in
    /// Apple's API, where a time-interval trigger's `nextTriggerDate()` counts from the moment it is asked; Herald's
    /// console lists pending notifications with it.
    public func pendingNotificationRequestsWithFireDates() -> [(request: UNNotificationRequest, nextFire: Date?)] {
        state.withLock { $0.pending.map { ($0.request, $0.nextFire) } }
    }

    /// The requests waiting for their trigger.
    public func getPendingNotificationRequests(completionHandler: @escaping @Sendable ([UNNotificationRequest]) -> Void)
    {
        completionHandler(state.withLock { $0.pending.map(\.request) })
    }

    /// Removes pending requests; unknown identifiers are ignored.
    public func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        state.withLock { $0.pending.removeAll { identifiers.contains($0.request.identifier) } }
    }

    /// Removes every pending request.
    public func removeAllPendingNotificationRequests() {
        state.withLock { $0.pending.removeAll() }
    }

    /// The notifications in Notification Center, newest first.
    public func deliveredNotifications() async -> [UNNotification] { state.withLock { $0.delivered } }

    /// The notifications in Notification Center, newest first.
    public func getDeliveredNotifications(completionHandler: @escaping @Sendable ([UNNotification]) -> Void) {
        completionHandler(state.withLock { $0.delivered })
    }

    /// Removes delivered notifications (and their attachments); unknown identifiers are ignored.
    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        let removed = state.withLock { state -> [UNNotification] in
            let removed = state.delivered.filter { identifiers.contains($0.request.identifier) }
            state.delivered.removeAll { identifiers.contains($0.request.identifier) }
            return removed
        }
        attachmentStore.remove(removed.flatMap(\.request.content.attachments))
    }

    /// Removes every delivered notification.
    public func removeAllDeliveredNotifications() {
        let removed = state.withLock { state -> [UNNotification] in
            defer { state.delivered.removeAll() }
            return state.delivered
        }
        attachmentStore.remove(removed.flatMap(\.request.content.attachments))
    }
}
