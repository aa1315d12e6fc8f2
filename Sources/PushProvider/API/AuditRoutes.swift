import Foundation
import HeraldTime
import Hummingbird
import ProviderStorage

/// `GET /v1/audit`: who changed what (``AuditLog``), newest first. The admin token reads every app's entries (or
/// one's with `?app=`), an API key with the `apps` scope its own app's. Filters: `from`, `to` (ISO 8601; the last
/// 30 days by default, at most ``maxDays`` apart), `kind`, `key` (a key ID), `before` (an entry id: the next page),
/// `limit` (1 to 1,000; 100).
struct AuditRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock

    /// The widest window one query may ask for.
    static let maxDays = 400

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.get("audit") { request, context -> Response in
            let query = request.uri.queryParameters
            var appID: String?
            if !context.caller.isAdmin || query.get("app") != nil {
                appID = try await context.caller.serverApp(request, store: self.store, needs: .apps).app.id
            }
            let to = try Self.date(query.get("to").map { String($0) }, field: "to") ?? self.now()
            let from =
                try Self.date(query.get("from").map { String($0) }, field: "from")
                ?? to.addingTimeInterval(-30 * 86_400)
            guard from <= to else { throw ProviderError.field("from", "must be before to") }
            guard to.timeIntervalSince(from) <= Double(Self.maxDays) * 86_400 else {
                throw ProviderError.field(
                    "from", "asks for more than \(Self.maxDays) days; ask for a narrower window (from and to)")
            }
            let limit = try Self.number(query.get("limit").map { String($0) }, field: "limit", in: 1...1000) ?? 100
            let before = try Self.number(query.get("before").map { String($0) }, field: "before", in: 1...Int.max)
            let entries = try await self.store.auditEntries(
                AuditQuery(
                    appID: appID, from: from, to: to, kind: query.get("kind").map { String($0) },
                    keyID: query.get("key").map { String($0) }, before: before.map(Int64.init), limit: limit))
            return try JSONCoding.response(entries)
        }
    }

    private static func date(_ text: String?, field: String) throws(ProviderError) -> Date? {
        guard let text else { return nil }
        let withFractions = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        guard let date = withFractions ?? (try? Date(text, strategy: .iso8601)) else {
            throw .field(field, "must be an ISO 8601 time such as 2026-11-22T07:00:00Z, not \(text.prefix(40))")
        }
        return date
    }

    private static func number(_ text: String?, field: String, in range: ClosedRange<Int>) throws(ProviderError)
        -> Int?
    {
        guard let text else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw .field(
                field, "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text.prefix(40))")
        }
        return number
    }
}
