import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationCompat
import ProviderStorage

/// Cancel, change and resend a notification after it was created (docs/api.md, "A notification's lifecycle").
struct NotificationLifecycleRoutes: ProviderRouteCollection {
    let provider: PushProviderService

    /// The body of a resend: which reason (all the provider gives up for when left out), and when the deliveries
    /// gave up (`from`, `to`; the last 24 hours for an app, any time for one notification).
    struct ResendInput: StrictInput, Sendable {
        var reason: String?
        var from: Date?
        var to: Date?

        enum CodingKeys: String, CodingKey, CaseIterable { case reason, from, to }
        static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
    }

    func addRoutes(to router: RouterGroup<ProviderRequestContext>) {
        router.delete("notifications/:id") { request, context -> Response in
            let notification = try await self.callersNotification(request, context)
            return try JSONCoding.response(try await self.provider.cancel(notification))
        }
        router.patch("notifications/:id") { request, context -> Response in
            let app = try await context.requireCaller().serverApp(request, store: self.store)
            let notification = try await self.callersNotification(request, context)
            let change = try await JSONCoding.decode(NotificationChange.self, from: request)
            return try JSONCoding.response(try await self.provider.change(notification, with: change, app: app))
        }
        router.post("notifications/:id/resend") { request, context -> Response in
            let notification = try await self.callersNotification(request, context)
            let input = try await Self.resendInput(request)
            let reasons = try PushProviderService.resendReasons(input.reason)
            let answered = try Self.range(input, defaultFrom: .distantPast, now: self.now())
            if notification.cancelledAt != nil {
                throw ProviderError.conflict("notification \(notification.id) was cancelled; create a new one")
            }
            if let expiration = notification.expiration, expiration > 0,
                Date(timeIntervalSince1970: Double(expiration)) < self.now()
            {
                throw ProviderError.conflict(
                    "notification \(notification.id) expired at "
                        + "\(Date(timeIntervalSince1970: Double(expiration)).formatted(.iso8601)) (its apns-expiration): "
                        + "APNs would not deliver it; create it again")
            }
            let resent = try await self.provider.resend([notification], reasons: reasons, answered: answered)
            return try JSONCoding.response(resent)
        }
        router.post("apps/:appID/resend") { request, context -> Response in
            let app = try await context.requireCaller().serverApp(
                request, store: self.store, pathAppID: try context.parameters.decoded("appID"))
            let input = try await Self.resendInput(request)
            let reasons = try PushProviderService.resendReasons(input.reason)
            let now = self.now()
            let answered = try Self.range(input, defaultFrom: now.addingTimeInterval(-86_400), now: now)
            // A delivery answers after its notification was made, at most its longest wait (a day past its
            // expiration's default) later: the notifications made from a day before `from` up to `to`.
            var notifications: [StoredNotification] = []
            var before: Date? = answered.upperBound.addingTimeInterval(0.001)
            let earliest = answered.lowerBound.addingTimeInterval(-2 * 86_400)
            pages: while true {
                let page = try await self.store.notifications(appID: app.app.id, before: before, limit: 500)
                for notification in page {
                    if notification.createdAt < earliest { break pages }
                    notifications.append(notification)
                }
                guard page.count == 500, let last = page.last else { break }
                before = last.createdAt
            }
            return try JSONCoding.response(
                try await self.provider.resend(notifications, reasons: reasons, answered: answered))
        }
    }

    /// The resend body; an empty body is `{}`.
    private static func resendInput(_ request: Request) async throws -> ResendInput {
        let body = try await request.body.collect(upTo: 1 << 16)
        guard body.readableBytes > 0 else { return ResendInput() }
        return try JSONCoding.decode(ResendInput.self, from: Data(buffer: body))
    }

    /// `from`...`to` of a resend, checked.
    private static func range(_ input: ResendInput, defaultFrom: Date, now: Date) throws(ProviderError)
        -> ClosedRange<Date>
    {
        let from = input.from ?? defaultFrom
        let to = input.to ?? now
        guard from <= to else {
            throw .field("from", "is after to: give from ≤ to (ISO 8601 times, such as 2026-11-22T07:00:00Z)")
        }
        return from...to
    }
}
