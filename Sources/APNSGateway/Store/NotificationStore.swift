public import APNSCore
public import Foundation
import Synchronization

/// Store-and-forward (reference E): a push for an online device is forwarded at once; for an offline one the newest
/// storable push per token (one app on one device) is kept until the device comes back or it expires.
///
/// - `apns-expiration: 0` is forwarded now or discarded, never stored.
/// - A newer push replaces the stored one (a collapse ID replaces too; the device shows it in place).
/// - A stored push is dropped at its deadline: the expiration, or 30 days.
/// - A forwarded push counts as delivered once the device acknowledges it; if the link drops first, the newest
///   unacknowledged storable push is stored again.
public final class NotificationStore: Sendable {
    /// A delivered notification and when the device acknowledged it.
    public struct Delivered: Sendable, Hashable {
        public let notification: AcceptedNotification
        public let deliveredAt: Date
    }

    private struct Slot {
        var stored: AcceptedNotification?
        var link: (any DeviceLink)?
        var unacknowledged: [AcceptedNotification] = []
        var delivered: [Delivered] = []
    }

    /// How many forwarded, unacknowledged pushes a token keeps before forgetting the oldest.
    static let unacknowledgedLimit = 64
    /// How many delivered pushes a token remembers for the admin API.
    static let deliveredHistoryLimit = 16

    /// What happened to every notification.
    public let log: DeliveryLog
    private let slots = Mutex<[Data: Slot]>([:])
    private let now: @Sendable () -> Date
    private let changed: @Sendable (APNSDeviceToken) -> Void

    /// - Parameters:
    ///   - log: where events are recorded.
    ///   - now: the clock.
    ///   - changed: called (outside any lock) whenever a token's stored notification changes, for persistence.
    public init(
        log: DeliveryLog = DeliveryLog(),
        now: @escaping @Sendable () -> Date = { Date() },
        changed: @escaping @Sendable (APNSDeviceToken) -> Void = { _ in }
    ) {
        self.log = log
        self.now = now
        self.changed = changed
    }

    /// Takes an accepted push: forwards it to the token's link, or stores it, or discards it.
    public func accept(_ notification: AcceptedNotification) {
        let token = notification.token
        let received = DeliveryLog.Event(.received, at: notification.receivedAt)
        let (link, replaced) = slots.withLock { slots -> ((any DeviceLink)?, AcceptedNotification?) in
            if let link = slots[token.bytes]?.link {
                slots[token.bytes]!.unacknowledged.append(notification)
                if slots[token.bytes]!.unacknowledged.count > Self.unacknowledgedLimit {
                    slots[token.bytes]!.unacknowledged.removeFirst()
                }
                return (link, nil)
            }
            guard notification.isStorable else { return (nil, nil) }
            let previous = slots[token.bytes]?.stored
            slots[token.bytes, default: Slot()].stored = notification
            return (nil, previous)
        }
        let ids = (notification.apnsID, notification.uniqueID, token.hex)
        if let link {
            log.record(ids.0, uniqueID: ids.1, token: ids.2, received, .init(.forwarded, at: now()))
            link.deliver(notification)
        } else if !notification.isStorable {
            log.record(
                ids.0, uniqueID: ids.1, token: ids.2, received,
                .init(.discarded, at: now(), "the device is offline and apns-expiration is 0 (deliver now or never)"))
        } else {
            log.record(ids.0, uniqueID: ids.1, token: ids.2, received, .init(.stored, at: now()))
            if let replaced {
                let detail = replacement(replaced, notification)
                log.record(replaced.apnsID, .init(.replaced, at: now(), detail, replacedBy: notification.apnsID))
            }
            changed(token)
        }
    }

    /// Connects a device's link for a token and forwards what was stored for it (unless it expired).
    public func attach(_ link: any DeviceLink, token: APNSDeviceToken) {
        let time = now()
        let (pending, expired) = slots.withLock { slots -> (AcceptedNotification?, AcceptedNotification?) in
            var slot = slots[token.bytes, default: Slot()]
            slot.link = link
            var pending = slot.stored
            var expired: AcceptedNotification?
            if let stored = pending, stored.deadline < time {
                expired = stored
                pending = nil
            }
            slot.stored = nil
            if let pending { slot.unacknowledged.append(pending) }
            slots[token.bytes] = slot
            return (pending, expired)
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
    public func detach(_ link: any DeviceLink, token: APNSDeviceToken) {
        let time = now()
        let (kept, dropped) = slots.withLock { slots -> (AcceptedNotification?, [AcceptedNotification]) in
            guard var slot = slots[token.bytes], let current = slot.link, current === link else { return (nil, []) }
            slot.link = nil
            let kept = slot.unacknowledged.last(where: { $0.isStorable && $0.deadline >= time })
            let dropped = slot.unacknowledged.filter { $0.apnsID != kept?.apnsID }
            slot.unacknowledged = []
            slot.stored = kept
            slots[token.bytes] = slot
            return (kept, dropped)
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
    public func acknowledge(_ apnsID: UUID, token: APNSDeviceToken) -> Bool {
        let time = now()
        let found = slots.withLock { slots -> Bool in
            guard let index = slots[token.bytes]?.unacknowledged.firstIndex(where: { $0.apnsID == apnsID }) else {
                return false
            }
            let notification = slots[token.bytes]!.unacknowledged.remove(at: index)
            slots[token.bytes]!.delivered.append(Delivered(notification: notification, deliveredAt: time))
            if slots[token.bytes]!.delivered.count > Self.deliveredHistoryLimit {
                slots[token.bytes]!.delivered.removeFirst()
            }
            return true
        }
        if found { log.record(apnsID, .init(.delivered, at: time)) }
        return found
    }

    /// The app was removed: its stored push is discarded.
    public func discardAll(for token: APNSDeviceToken, reason: String) {
        let stored = slots.withLock { slots in
            let stored = slots[token.bytes]?.stored
            slots[token.bytes]?.stored = nil
            return stored
        }
        guard let stored else { return }
        log.record(stored.apnsID, .init(.discarded, at: now(), reason))
        changed(token)
    }

    /// What is stored for a token (dropping it first if it expired) and what it was delivered recently.
    public func notifications(for token: APNSDeviceToken) -> (stored: [AcceptedNotification], delivered: [Delivered]) {
        let time = now()
        let (slot, expired) = slots.withLock { slots -> (Slot?, AcceptedNotification?) in
            guard let stored = slots[token.bytes]?.stored, stored.deadline < time else {
                return (slots[token.bytes], nil)
            }
            slots[token.bytes]!.stored = nil
            return (slots[token.bytes], stored)
        }
        if let expired {
            log.record(expired.apnsID, .init(.expired, at: time, expiredDetail(expired)))
            changed(token)
        }
        let waiting = (slot?.stored.map { [$0] } ?? []) + (slot?.unacknowledged ?? [])
        return (waiting, slot?.delivered ?? [])
    }

    /// The stored (offline) push of a token, for persistence.
    public func storedNotification(for token: APNSDeviceToken) -> AcceptedNotification? {
        slots.withLock { $0[token.bytes]?.stored }
    }

    /// Every stored push, for persistence.
    public func allStored() -> [AcceptedNotification] {
        slots.withLock { slots in slots.values.compactMap(\.stored) }
    }

    /// Puts back a stored push read from disk, without logging or reporting a change.
    public func restore(_ notification: AcceptedNotification) {
        slots.withLock { $0[notification.token.bytes, default: Slot()].stored = notification }
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
