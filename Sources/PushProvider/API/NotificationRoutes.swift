import Foundation
import HTTPTypes
import Hummingbird
import Prometheus
import ProviderStorage

struct NotificationRoutes: ProviderRouteCollection {
    let provider: PushProviderService

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("notifications") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store)
            let input = try await JSONCoding.decode(NotificationInput.self, from: request)
            let report = try await self.createNotification(input, for: app)
            return try JSONCoding.response(report, status: .accepted)
        }
        router.get("notifications") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store)
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
                try await self.provider.notificationReports(appID: app.app.id, before: before, limit: limit))
        }
        router.get("notifications/:id") { request, context -> Response in
            let notification = try await self.callersNotification(request, context)
            return try JSONCoding.response(try await self.provider.report(notification))
        }
        router.get("notifications/:id/deliveries") { request, context -> Response in
            let (id, query) = (try await self.callersNotification(request, context).id, request.uri.queryParameters)
            let limit = Self.pageLimit(request)
            let after = try query.get("after").map { text throws(ProviderError) -> Int64 in
                guard let message = DeliveryMessageID(text) else {
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
            let app = try await context.caller.serverApp(request, store: self.store)
            let text = try context.parameters.decoded("apnsID")
            guard DeliveryMessageID(text) != nil else {
                throw ProviderError.field("apns-id", "\(text) is not an apns-id this provider made (a UUID)")
            }
            guard var trace = try await self.provider.deliveryTrace(apnsID: text), trace.appID == app.app.id else {
                if let pruned = try await self.provider.prunedDelivery(apnsID: text), pruned.appID == app.app.id {
                    let days = app.app.retention.filled(from: self.provider.configuration.retention).deliveries ?? 0
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

    /// Checks, stores and queues a notification; one delivery per targeted device.
    func createNotification(_ input: NotificationInput, for app: StoredApp) async throws(ProviderError)
        -> NotificationReport
    {
        let now = now()
        let plan = try NotificationPlan(input, bundleID: app.app.bundleID, now: now)
        if case .channel(let id) = plan.target {
            try await checkBroadcast(on: id, expiration: plan.expiration, app: app)
        }
        let stored = StoredNotification(
            id: UUID().uuidString, appID: app.app.id, target: plan.target.stored, payload: plan.payload,
            pushType: plan.pushType, priority: plan.priority, expiration: plan.expiration,
            collapseID: plan.collapseID, encryptedKey: plan.encrypted?.key, encrypted: plan.encrypted?.plaintext,
            sendAt: plan.sendAt, dailyAt: plan.dailyAt?.text, targeted: 0, createdAt: now)
        _ = try await store.insertNotification(stored, target: plan.target, requireKey: plan.encrypted != nil)
        provider.metrics.notificationsCreated.increment()
        if plan.dailyAt != nil {
            await DailyScheduler(
                store: store, engine: provider.engine, failures: provider.failures, clock: provider.configuration.clock
            ).scheduleDue(
                now: now, only: stored.id)
        }
        provider.engine.notify()
        // Safety: inserted just above.
        var created = try await provider.report(try await store.notification(id: stored.id)!)
        if plan.priority != 5, let warning = try await budgetWarning(plan.target, appID: app.app.id, now: now) {
            created.warning = warning
        } else if created.stats.targeted == 0, plan.target.isLiveActivity {
            created.warning =
                "no activity token of this app matches \(created.target), so nothing will be sent; "
                + "see GET /v1/activities/tokens?type=...&user=... for what activities registered"
        } else if created.stats.targeted == 0, plan.target.widgetPushType != nil {
            created.warning =
                "no widget token of this app matches \(created.target), so nothing will be sent; "
                + "see GET /v1/widgets/tokens?user=...&control=... for what widgets and controls registered"
        } else if created.stats.targeted == 0, plan.dailyAt == nil {
            let key = plan.encrypted == nil ? "" : " with an end-to-end public key (encrypted content needs one)"
            created.warning =
                "no active device of this app matches \(created.target)\(key), so nothing will be sent; "
                + "see GET /v1/devices?user=...&tag=... for who is registered"
        }
        return created
    }

    /// Priority-10 pushes an activity may get in an hour before the provider warns. iOS budgets them and throttles
    /// past the budget, whose size Apple does not publish; this is Herald's threshold, one every six
    /// minutes.
    static let priority10WarningPerHour = 10

    /// A warning when a targeted activity had more than ``priority10WarningPerHour`` priority-10 pushes this hour.
    private func budgetWarning(_ target: NotificationTarget, appID: String, now: Date) async throws(ProviderError)
        -> String?
    {
        var query = ActivityTokenQuery(appID: appID, kind: "update", limit: 1000)
        switch target {
        case .activity(let id): query.activityID = id
        case .activities(let type, let user, false):
            query.attributesType = type
            query.userID = user
        default: return nil
        }
        let used = try await store.activityTokens(query, now: now).map(\.priority10ThisHour).max() ?? 0
        guard used > Self.priority10WarningPerHour else { return nil }
        return "an activity of \(target.summary) has had \(used) priority-10 pushes this hour: iOS counts priority 10 "
            + "against the activity's budget and throttles it when spent; send routine updates with priority 5"
    }

    /// A broadcast goes to one of the app's channels, with an expiration its storage policy takes.
    private func checkBroadcast(on id: String, expiration: Int?, app: StoredApp) async throws(ProviderError) {
        guard let channel = try await store.channels(appID: app.app.id).first(where: { $0.id == id }) else {
            throw .field(
                "target.channel",
                "\(id) is not one of app \(app.app.id)'s channels: make one with POST /v1/channels (GET /v1/channels "
                    + "lists them)")
        }
        if channel.storagePolicy == 0, let expiration, expiration != 0 {
            throw .field(
                "expiration",
                "channel \(id) stores no message (storage policy 0), so APNs refuses a nonzero expiration "
                    + "(BadExpirationDate): give 0 or leave it out")
        }
    }
}
