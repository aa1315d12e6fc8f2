import Foundation
import HTTPTypes
import HeraldTime
import Hummingbird
import Prometheus
import ProviderStorage

struct NotificationRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    let notifications: NotificationOperations
    /// The retention of an app that sets none (``PushProviderService/Configuration/retention``).
    let retention: RetentionDays

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("notifications") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .send)
            let input = try await JSONCoding.decode(NotificationInput.self, from: request)
            let report = try await self.notifications.create(input, for: app)
            return try JSONCoding.response(report, status: .accepted)
        }
        router.get("notifications") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .read)
            let query = request.uri.queryParameters
            let limit = min(500, max(1, query.get("limit").flatMap { Int($0) } ?? 50))
            var before: Date?
            if let text = query.get("before") {
                guard let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
                else {
                    throw ProviderError.field("before", "must be an ISO 8601 time such as 2026-11-22T07:00:00.000Z")
                }
                before = date
            }
            return try JSONCoding.response(
                try await self.notifications.reports(appID: app.app.id, before: before, limit: limit))
        }
        router.get("notifications/:id") { request, context -> Response in
            let notification = try await self.callersNotification(request, context)
            return try JSONCoding.response(try await self.notifications.report(notification))
        }
        router.get("notifications/:id/deliveries") { request, context -> Response in
            let (id, query) = (try await self.callersNotification(request, context).id, request.uri.queryParameters)
            let limit = Self.pageLimit(request)
            let after = try query.get("after").map { text throws(ProviderError) -> Int64 in
                guard let message = DeliveryMessageID(text, key: self.store.messageKey) else {
                    throw .field("after", "must be the apns-id of one of this notification's deliveries")
                }
                return message.deliveryID
            }
            let now = self.now()
            return try JSONCoding.response(
                try await self.store.deliveries(notificationID: id, after: after ?? 0, limit: limit).map { trace in
                    var trace = trace
                    trace.verdict = DeliveryVerdict.of(trace, now: now)
                    return trace
                })
        }
        router.get("notifications/:id/responses") { request, context -> Response in
            let (id, query) = (try await self.callersNotification(request, context).id, request.uri.queryParameters)
            let limit = Self.pageLimit(request)
            let after = try query.get("after").map { text throws(ProviderError) -> Int64 in
                guard let cursor = Int64(text), cursor >= 0 else {
                    throw .field("after", "must be the id of the last response of the previous page")
                }
                return cursor
            }
            return try JSONCoding.response(
                try await self.store.responses(notificationID: id, after: after ?? 0, limit: limit))
        }
        router.get("deliveries/:apnsID") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .read)
            let text = try context.parameters.decoded("apnsID")
            guard DeliveryMessageID(text, key: self.store.messageKey) != nil else {
                throw ProviderError.field("apns-id", "\(text) is not an apns-id this provider made (a UUID)")
            }
            guard var trace = try await self.notifications.deliveryTrace(apnsID: text), trace.appID == app.app.id else {
                if let pruned = try await self.notifications.prunedDelivery(apnsID: text), pruned.appID == app.app.id {
                    let days = app.app.retention.filled(from: self.retention).deliveries ?? 0
                    throw ProviderError.gone(
                        "the record of delivery \(text) was pruned at \(pruned.prunedAt.formatted(.iso8601)): app "
                            + "\(app.app.id) keeps deliveries \(days) days. Its notification's counts remain: "
                            + "GET /v1/notifications/\(pruned.id) (herald why \(pruned.id))")
                }
                throw ProviderError.notFound("app \(app.app.id) sent no notification with apns-id \(text)")
            }
            trace.verdict = DeliveryVerdict.of(trace, now: self.now())
            return try JSONCoding.response(trace)
        }
    }

    /// A page's `limit`: 1 to 1000, 100 when not given.
    private static func pageLimit(_ request: Request) -> Int {
        min(1000, max(1, request.uri.queryParameters.get("limit").flatMap { Int($0) } ?? 100))
    }
}
