package import APNSCore
package import Courier
package import Foundation
import HeraldSupport
import NIOCore
import Synchronization

/// Broadcasts: publishing one to a channel's subscribers, their acknowledgements, and the reports of the latest.
extension ChannelRegistry {
    /// Takes an accepted broadcast: keeps it on a storing channel (when its expiration is not 0), records it, and
    /// returns the delivery to run, which writes it to every subscriber. Run the delivery apart from the request's
    /// answer (``BroadcastFanOut``): its cost grows with the subscribers, the answer's must not.
    ///
    /// - Returns: the delivery.
    package func publish(_ broadcast: ChannelBroadcast) -> @Sendable () -> Void {
        let (subscribers, stored) = state.withLock { state -> ([(SubscriberKey, Subscriber)], Bool) in
            guard var channel = state.channels[broadcast.channelID] else { return ([], false) }
            let stores = channel.storagePolicy == .mostRecentMessageStored && broadcast.expiration != .immediately
            if stores {
                channel.storedMessage = broadcast
                state.channels[broadcast.channelID] = channel
            }
            let subscribers = Array(state.subscribers[broadcast.channelID] ?? [:])
            var report = BroadcastReport(
                requestID: broadcast.requestID, uniqueID: broadcast.uniqueID, channelID: broadcast.channelID,
                bundleID: broadcast.bundleID, receivedAt: broadcast.receivedAt, stored: stores)
            report.reached = subscribers.count
            state.reports[broadcast.uniqueID] = report
            state.unacknowledged[broadcast.uniqueID] = Set(subscribers.map(\.0))
            state.reportOrder.append(broadcast.uniqueID)
            if state.reportOrder.count > Self.reportLimit {
                let oldest = state.reportOrder.removeFirst()
                state.reports[oldest] = nil
                state.unacknowledged[oldest] = nil
            }
            return (subscribers, stores)
        }
        var events = [
            DeliveryLog.Event(.received, at: broadcast.receivedAt),
            DeliveryLog.Event(
                .forwarded, at: now(),
                "broadcast on channel \(broadcast.channelID) to \(subscribers.count) subscribed device(s)"),
        ]
        if stored {
            events.append(
                DeliveryLog.Event(.stored, at: now(), "kept as the channel's most recent message for later subscribers")
            )
            changed(.channel(broadcast.channelID))
        }
        log.record(broadcast.requestID, uniqueID: broadcast.uniqueID, events: events)
        let body = broadcast.json()
        // One task per event loop writes that loop's links there: no hop per device.
        let byLoop = Dictionary(grouping: subscribers.map(\.1)) { ObjectIdentifier($0.link.eventLoop) }
        let deliver: @Sendable () -> Void = {
            for group in byLoop.values {
                group[0].link.eventLoop.execute {
                    for subscriber in group {
                        subscriber.link.deliverBroadcast(Self.message(body: body, token: subscriber.token))
                    }
                }
            }
        }
        return deliver
    }

    /// A device acknowledged a broadcast it was given; each device counts once.
    ///
    /// - Returns: `false` when that device was not given it, or it is too old to be reported.
    @discardableResult
    package func acknowledge(_ uniqueID: UUID, link: any BroadcastLink, token: APNSDeviceToken) -> Bool {
        let time = now()
        let key = SubscriberKey(link: ObjectIdentifier(link), token: token)
        let completed = state.withLock { state -> BroadcastReport?? in
            guard state.unacknowledged[uniqueID]?.remove(key) != nil,
                let receivedAt = state.reports[uniqueID]?.receivedAt
            else { return .none }
            // Changed in place: a copy of the report would copy its delays, 10,000 of them for a large channel,
            // once per acknowledgement.
            state.reports[uniqueID]?.acknowledged += 1
            state.reports[uniqueID]?.acknowledgementDelays.append(time.timeIntervalSince(receivedAt))
            // Safety: read just above under the same lock.
            let report = state.reports[uniqueID]!
            return .some(report.acknowledged == report.reached ? report : nil)
        }
        guard let completed else { return false }
        changes.notify()
        if let report = completed {
            log.record(report.requestID, .init(.delivered, at: time, "acknowledged by all \(report.reached) device(s)"))
        }
        return true
    }

    /// The reports of the latest broadcasts, newest first; only those on `channel` when it is given.
    package func reports(channel: APNSChannelID? = nil) -> [BroadcastReport] {
        state.withLock { state in
            state.reportOrder.reversed().compactMap { state.reports[$0] }
                .filter { channel == nil || $0.channelID == channel }
        }
    }

    /// The courier message a device gets for a broadcast: `{"op": "broadcast", "token", ...the broadcast}`.
    static func message(_ broadcast: ChannelBroadcast, token: APNSDeviceToken) -> [UInt8] {
        message(body: broadcast.json(), token: token)
    }

    static func message(body: [UInt8], token: APNSDeviceToken) -> [UInt8] {
        var bytes = Array(#"{"op":"broadcast","token":""#.utf8)
        bytes.reserveCapacity(bytes.count + 66 + body.count)
        bytes += Array(token.hex.utf8)
        bytes += Array(#"","#.utf8)
        bytes += body.dropFirst()
        return bytes
    }
}
