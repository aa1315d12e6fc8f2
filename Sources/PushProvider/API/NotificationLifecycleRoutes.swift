import Foundation
import HTTPTypes
import HeraldTime
import Hummingbird
import NIOCore
import NIOFoundationCompat
import ProviderStorage

/// Cancel, change and resend a notification after it was created (docs/api.md, "A notification's lifecycle").
struct NotificationLifecycleRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    let notifications: NotificationOperations

    /// The body of a resend: which reason (all the provider gives up for when left out), and when the deliveries
    /// gave up (`from`, `to`; the last 24 hours for an app, any time for one notification).
    struct ResendInput: StrictInput, Sendable {
        var reason: String?
        var from: Date?
        var to: Date?

        enum CodingKeys: String, CodingKey, CaseIterable { case reason, from, to }
        static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
    }

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.delete("notifications/:id") { request, context -> Response in
            let notification = try await self.callersNotification(request, context, needs: .send)
            return try JSONCoding.response(try await self.notifications.cancel(notification))
        }
        router.patch("notifications/:id") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .send)
            let notification = try await self.callersNotification(request, context, needs: .send)
            let change = try await JSONCoding.decode(NotificationChange.self, from: request)
            return try JSONCoding.response(try await self.notifications.change(notification, with: change, app: app))
        }
        router.post("notifications/:id/resend") { request, context -> Response in
            let notification = try await self.callersNotification(request, context, needs: .send)
            let input = try await Self.resendInput(request)
            guard let app = try await self.store.app(id: notification.appID) else {
                throw ProviderError.notFound("no app with id \(notification.appID)")
            }
            let (reasons, answered) = try NotificationOperations.resendReasons(
                input.reason, app: app.app, answered: try Self.range(input, defaultFrom: .distantPast, now: self.now()))
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
            let resent = try await self.notifications.resend([notification], reasons: reasons, answered: answered)
            return try JSONCoding.response(resent)
        }
        router.post("apps/:appID/resend") { request, context -> Response in
            let app = try await context.caller.serverApp(
                request, store: self.store, pathAppID: try context.parameters.decoded("appID"), needs: .send)
            let input = try await Self.resendInput(request)
            let now = self.now()
            let (reasons, answered) = try NotificationOperations.resendReasons(
                input.reason, app: app.app,
                answered: try Self.range(input, defaultFrom: now.addingTimeInterval(-86_400), now: now))
            guard answered.upperBound.timeIntervalSince(answered.lowerBound) <= Self.longestAppResend else {
                throw ProviderError.field(
                    "from",
                    "from and to are more than \(Int(Self.longestAppResend / 86_400)) days apart: resend one range "
                        + "at a time")
            }
            // A delivery is answered after its notification was made, and at most two days later (its longest wait
            // for APNs is a day, then its retries): the notifications made from two days before `from` up to `to`,
            // a page at a time.
            var total = NotificationOperations.Resent(resent: 0, notifications: 0, reasons: reasons)
            var before: Date? = answered.upperBound.addingTimeInterval(0.001)
            let earliest = answered.lowerBound.addingTimeInterval(-2 * 86_400)
            while true {
                let page = try await self.store.notifications(appID: app.app.id, before: before, limit: 500)
                let inRange = page.filter { $0.createdAt >= earliest }
                let resent = try await self.notifications.resend(inRange, reasons: reasons, answered: answered)
                total.resent += resent.resent
                total.notifications += resent.notifications
                guard page.count == 500, inRange.count == page.count, let last = page.last else { break }
                before = last.createdAt
            }
            return try JSONCoding.response(total)
        }
    }

    /// The longest range of answer times an app-wide resend takes: 31 days.
    static let longestAppResend: TimeInterval = 31 * 86_400

    /// The resend body; an empty body is `{}`.
    private static func resendInput(_ request: Request) async throws -> ResendInput {
        let body = try await JSONCoding.body(of: request, limit: 1 << 16)
        guard !body.isEmpty else { return ResendInput() }
        return try JSONCoding.decode(ResendInput.self, from: body)
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
