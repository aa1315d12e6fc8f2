package import APNSCore
package import Courier
package import Foundation
package import HeraldTime
import Synchronization

/// Store-and-forward: a push for an online device is forwarded at once; for an offline one the newest
/// storable push per token (one app on one device) is kept until the device comes back or it expires.
///
/// - `apns-expiration: 0` is forwarded now or discarded, never stored.
/// - A newer push replaces the stored one (a collapse ID replaces too; the device shows it in place).
/// - A stored push is dropped at its deadline: the expiration, or 30 days.
/// - A forwarded push counts as delivered once the device acknowledges it; if the link drops first, the newest
///   unacknowledged storable push is stored again.
package final class NotificationStore: Sendable {
    /// A delivered notification and when the device acknowledged it.
    package struct Delivered: Sendable, Hashable {
        package let notification: AcceptedNotification
        package let deliveredAt: Date
    }

    /// Kept apart so an offline token's stored push costs one dictionary entry and nothing more.
    private struct State {
        var stored: [APNSDeviceToken: Stored] = [:]
        var online: [APNSDeviceToken: Online] = [:]
        var delivered: [APNSDeviceToken: [Delivered]] = [:]
    }

    /// A stored push behind a reference: a dictionary has up to twice as many buckets as entries (and more right after
    /// it grows), so an empty bucket costs a pointer instead of a whole notification (about 150 bytes).
    private final class Stored: Sendable {
        let notification: AcceptedNotification

        init(_ notification: AcceptedNotification) {
            self.notification = notification
        }
    }

    private struct Online {
        var link: any DeviceLink
        var unacknowledged: [AcceptedNotification] = []
    }

    /// How many forwarded, unacknowledged pushes a token keeps before forgetting the oldest.
    static let unacknowledgedLimit = 64
    /// How many delivered pushes a token remembers for the admin API.
    static let deliveredHistoryLimit = 16

    /// What happened to every notification.
    package let log: DeliveryLog
    private let state = Mutex(State())
    /// The time of day the gateway goes by.
    private let clock: any WallClock
    private let changed: @Sendable (APNSDeviceToken) -> Void

    /// - Parameters:
    ///   - log: where events are recorded.
    ///   - clock: the time of day the gateway goes by (tests move it).
    ///   - changed: called (outside any lock) whenever a token's stored notification changes, for persistence.
    package init(
        log: DeliveryLog = DeliveryLog(),
        clock: any WallClock = SystemWallClock(),
        changed: @escaping @Sendable (APNSDeviceToken) -> Void = { _ in }
    ) {
        self.log = log
        self.clock = clock
        self.changed = changed
    }

    /// What ``accept(_:)`` did with a push.
    package enum Acceptance: Sendable {
        /// Forwarded to the online device.
        case forwarded
        /// Not kept: the device is offline and the push may not be stored.
        case discarded
        /// Stored for the offline device, in place of `replaced` if there was one; it reaches the disk at the next
        /// journal flush.
        case stored(replaced: AcceptedNotification?)
    }

    /// Takes an accepted push: forwards it to the token's link, or stores it, or discards it.
    @discardableResult
    package func accept(_ notification: AcceptedNotification) -> Acceptance {
        let token = notification.token
        let received = DeliveryLog.Event(.received, at: notification.receivedAt)
        let (link, replaced) = state.withLock { state -> ((any DeviceLink)?, AcceptedNotification?) in
            if var online = state.online[token] {
                online.unacknowledged.append(notification)
                if online.unacknowledged.count > Self.unacknowledgedLimit { online.unacknowledged.removeFirst() }
                state.online[token] = online
                return (online.link, nil)
            }
            guard notification.isStorable else { return (nil, nil) }
            let replaced = state.stored.updateValue(Stored(notification), forKey: token)?.notification
            // Logged under the lock: a push that replaces this one at once must not log "replaced" for it before
            // this one's "received" and "stored" (seen with 300 concurrent pushes to one token).
            log.record(
                notification.apnsID, uniqueID: notification.uniqueID, token: token, received, .init(.stored, at: now()))
            if let replaced {
                log.record(
                    replaced.apnsID,
                    .init(.replaced, at: now(), replacement(replaced, notification), replacedBy: notification.apnsID))
            }
            return (nil, replaced)
        }
        let (apnsID, uniqueID) = (notification.apnsID, notification.uniqueID)
        if let link {
            log.record(apnsID, uniqueID: uniqueID, token: token, received, .init(.forwarded, at: now()))
            link.deliver(notification)
            return .forwarded
        } else if !notification.isStorable {
            log.record(
                apnsID, uniqueID: uniqueID, token: token, received,
                .init(.discarded, at: now(), "the device is offline and apns-expiration is 0 (deliver now or never)"))
            return .discarded
        } else {
            changed(token)
            return .stored(replaced: replaced)
        }
    }

    /// Takes back a stored push that could not be written to disk (its request is answered with an error instead of
    /// 200), putting back the push it replaced. Nothing changes when another push has replaced it since.
    package func withdraw(_ notification: AcceptedNotification, restoring replaced: AcceptedNotification?) {
        let token = notification.token
        let withdrawn = state.withLock { state -> Bool in
            guard state.stored[token]?.notification.apnsID == notification.apnsID else { return false }
            state.stored[token] = replaced.map(Stored.init)
            return true
        }
        guard withdrawn else { return }
        let time = now()
        log.record(
            notification.apnsID,
            .init(.rejected, at: time, "ServiceUnavailable: the gateway could not write its journal; not stored"))
        if let replaced {
            log.record(
                replaced.apnsID, .init(.stored, at: time, "kept again: the push that replaced it was not stored"))
        }
    }

    /// Connects a device's link for a token and forwards what was stored for it (unless it expired).
    package func attach(_ link: any DeviceLink, token: APNSDeviceToken) {
        let time = now()
        let (pending, expired) = state.withLock { state -> (AcceptedNotification?, AcceptedNotification?) in
            var online = Online(link: link)
            let stored = state.stored.removeValue(forKey: token)?.notification
            guard let stored else {
                state.online[token] = online
                return (nil, nil)
            }
            if stored.deadline < time {
                state.online[token] = online
                return (nil, stored)
            }
            online.unacknowledged.append(stored)
            state.online[token] = online
            return (stored, nil)
        }
        if let expired { log.record(expired.apnsID, .init(.expired, at: time, expiredDetail(expired))) }
        if let pending {
            log.record(pending.apnsID, .init(.forwarded, at: time))
            link.deliver(pending)
        }
        if pending != nil || expired != nil { changed(token) }
    }

    /// Disconnects a link (only if it is still the token's link); the newest unacknowledged storable push is stored
    /// again, the rest are discarded.
    package func detach(_ link: any DeviceLink, token: APNSDeviceToken) {
        let time = now()
        let (kept, dropped) = state.withLock { state -> (AcceptedNotification?, [AcceptedNotification]) in
            guard let online = state.online[token], online.link === link else { return (nil, []) }
            state.online[token] = nil
            let kept = online.unacknowledged.last(where: { $0.isStorable && $0.deadline >= time })
            if let kept { state.stored[token] = Stored(kept) }
            return (kept, online.unacknowledged.filter { $0.apnsID != kept?.apnsID })
        }
        for notification in dropped {
            log.record(
                notification.apnsID,
                .init(.discarded, at: time, "the device disconnected before acknowledging it; only the newest is kept"))
        }
        if let kept {
            log.record(kept.apnsID, .init(.stored, at: time, "the device disconnected before acknowledging it"))
            changed(token)
        }
    }

    /// The device received a forwarded push.
    ///
    /// - Returns: `false` when no such push is waiting for that token.
    @discardableResult
    package func acknowledge(_ apnsID: UUID, token: APNSDeviceToken) -> Bool {
        let time = now()
        let found = state.withLock { state -> Bool in
            guard var online = state.online[token],
                let index = online.unacknowledged.firstIndex(where: { $0.apnsID == apnsID })
            else { return false }
            let notification = online.unacknowledged.remove(at: index)
            state.online[token] = online
            var delivered = state.delivered[token] ?? []
            delivered.append(Delivered(notification: notification, deliveredAt: time))
            if delivered.count > Self.deliveredHistoryLimit { delivered.removeFirst() }
            state.delivered[token] = delivered
            return true
        }
        if found { log.record(apnsID, .init(.delivered, at: time)) }
        return found
    }

    /// The app was removed: its stored push is discarded.
    package func discardAll(for token: APNSDeviceToken, reason: String) {
        let stored = state.withLock { $0.stored.removeValue(forKey: token)?.notification }
        guard let stored else { return }
        log.record(stored.apnsID, .init(.discarded, at: now(), reason))
        changed(token)
    }

    /// What is stored or waiting for acknowledgement for a token (dropping the stored one first if it expired), and
    /// what it was delivered recently.
    package func notifications(for token: APNSDeviceToken) -> (stored: [AcceptedNotification], delivered: [Delivered]) {
        let time = now()
        let (waiting, delivered, expired) = state.withLock {
            state -> ([AcceptedNotification], [Delivered], AcceptedNotification?) in
            var expired: AcceptedNotification?
            if let stored = state.stored[token]?.notification, stored.deadline < time {
                state.stored[token] = nil
                expired = stored
            }
            let waiting =
                (state.stored[token].map { [$0.notification] } ?? []) + (state.online[token]?.unacknowledged ?? [])
            return (waiting, state.delivered[token] ?? [], expired)
        }
        if let expired {
            log.record(expired.apnsID, .init(.expired, at: time, expiredDetail(expired)))
            changed(token)
        }
        return (waiting, delivered)
    }

    /// The stored (offline) push of a token, for persistence.
    package func storedNotification(for token: APNSDeviceToken) -> AcceptedNotification? {
        state.withLock { $0.stored[token]?.notification }
    }

    /// How many pushes wait for their devices.
    package var storedCount: Int { state.withLock { $0.stored.count } }

    /// How many devices are connected now.
    package var onlineCount: Int { state.withLock { $0.online.count } }

    /// Every stored push, for persistence.
    package func allStored() -> [AcceptedNotification] {
        state.withLock { $0.stored.values.map(\.notification) }
    }

    /// Puts back a stored push read from disk, without logging or reporting a change.
    package func restore(_ notification: AcceptedNotification) {
        state.withLock { $0.stored[notification.token] = Stored(notification) }
    }

    private func replacement(_ old: AcceptedNotification, _ new: AcceptedNotification) -> String {
        if let collapseID = new.collapseID, collapseID == old.collapseID {
            return "a newer notification with the same collapse ID replaced it"
        }
        return "a newer notification replaced it: an offline device keeps only the newest notification per app"
    }

    private func expiredDetail(_ notification: AcceptedNotification) -> String {
        "its deadline \(notification.deadline) passed before the device came online"
    }
}

extension NotificationStore {
    /// The time now, on the gateway's clock.
    func now() -> Date { clock.currentDate }
}
