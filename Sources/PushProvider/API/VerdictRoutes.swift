import Foundation
import HeraldTime
import Hummingbird
import ProviderStorage

struct VerdictRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock

    /// "Why didn't it arrive?": each notification's breakdown by verdict, and the devices of one verdict.
    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.get("notifications/:id/breakdown") { request, context -> Response in
            let notification = try await self.callersNotification(request, context)
            let stats = try await self.store.stats(notificationIDs: [notification.id])[notification.id] ?? .init()
            var breakdown = NotificationBreakdown(notificationID: notification.id, stats: stats)
            if breakdown.verdicts.contains(where: { $0.verdict == DeliveryVerdict.Kind.awaitingDevice.rawValue }),
                try await self.store.app(id: notification.appID)?.lastReceiptAt == nil
            {
                breakdown.note = NotificationBreakdown.noReceiptsNote
            }
            return try JSONCoding.response(breakdown)
        }
        router.get("notifications/:id/verdicts") { request, context -> Response in
            let notification = try await self.callersNotification(request, context)
            let query = request.uri.queryParameters
            let wanted = try query.get("verdict").map { text throws(ProviderError) -> String in
                guard DeliveryVerdict.Kind(rawValue: text) != nil else {
                    let kinds = DeliveryVerdict.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .field("verdict", "\(text) is not a verdict; one of \(kinds)")
                }
                return text
            }
            let after = try query.get("after").map { text throws(ProviderError) -> Int64 in
                guard let message = DeliveryMessageID(text, key: self.store.messageKey) else {
                    throw .field("after", "must be the apns-id of one of this notification's deliveries")
                }
                return message.deliveryID
            }
            let limit = min(1000, max(1, query.get("limit").flatMap { Int($0) } ?? 100))
            let page = try await self.verdicts(
                of: notification.id, matching: wanted, after: after ?? 0, limit: limit)
            return try JSONCoding.response(page)
        }
    }

    /// One page of a notification's deliveries with their verdicts (of one kind when `wanted` is given): at most
    /// `limit`, looking at no more than ``verdictScanLimit`` deliveries; `next` continues where it stopped.
    private func verdicts(of notificationID: String, matching wanted: String?, after: Int64, limit: Int)
        async throws(ProviderError) -> VerdictPage
    {
        var found: [DeliveryTrace] = []
        var cursor = after
        var scanned = 0
        var exhausted = false
        let now = now()
        pages: while found.count < limit, scanned < Self.verdictScanLimit {
            let batch = try await store.deliveries(notificationID: notificationID, after: cursor, limit: 1000)
            for var trace in batch {
                scanned += 1
                cursor = DeliveryMessageID(trace.apnsID, key: self.store.messageKey)?.deliveryID ?? cursor
                let verdict = DeliveryVerdict.of(trace, now: now)
                if let wanted, !Self.matches(verdict, wanted) { continue }
                trace.verdict = verdict
                found.append(trace)
                if found.count == limit { break pages }
            }
            if batch.count < 1000 {
                exhausted = true
                break
            }
        }
        let next =
            exhausted
            ? nil : DeliveryMessageID(notificationID: notificationID, deliveryID: cursor, key: store.messageKey).string
        return VerdictPage(deliveries: found, next: next, scanned: scanned)
    }

    /// A breakdown's `queued` lists every delivery not sent yet: scheduled, retrying, waiting for APNs or for the
    /// end of its device's quiet hours, or queued; its `quietHours` those its quiet hours dropped.
    private static func matches(_ verdict: DeliveryVerdict, _ wanted: String) -> Bool {
        if verdict.verdict == DeliveryVerdict.Kind.quietHours.rawValue {
            return wanted == (verdict.decided ? verdict.verdict : "queued")
        }
        return verdict.verdict == wanted
            || (wanted == "queued" && ["scheduled", "retrying", "waitingForAPNs"].contains(verdict.verdict))
    }

    /// The most deliveries one verdicts request looks at.
    static let verdictScanLimit = 20_000

    /// `GET /v1/notifications/{id}/verdicts`.
    struct VerdictPage: Encodable {
        var deliveries: [DeliveryTrace]
        /// The `after` of the next page; absent when every delivery was looked at.
        var next: String?
        /// How many deliveries this page looked at.
        var scanned: Int
    }
}
