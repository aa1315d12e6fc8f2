import APNSCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ProviderStorage
import PushProvider

extension ConsoleRoutes {
    /// How often a live view may be read: History after a change the provider records, at most once a second; a
    /// device's screen after a change the device reports (`GET /changes` on its API), at most every 300 ms.
    static let historyInterval: Duration = .seconds(1)
    static let deviceInterval: Duration = .milliseconds(300)

    func addLiveRoutes(to router: Router<ProviderRequestContext>) {
        router.get("console/api/history/stream") { request, _ -> Response in
            let session = try await requireSession(request)
            let query = request.uri.queryParameters
            guard let appID = query.get("app"), self.session(session, mayRead: appID) else {
                throw ProviderError.invalid(field: "app", message: "name an app this session may see: ?app=<app id>")
            }
            let limit = min(100, max(1, query.get("limit").flatMap { Int($0) } ?? 25))
            let before = query.get("before").flatMap {
                try? Date($0, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            }
            let provider = self.provider
            let key = "history \(appID) \(limit) \(before.map { "\($0.timeIntervalSince1970)" } ?? "now")"
            let changes = LiveFeeds.Changes { after, upTo in
                if let after { await provider.waitForChanges(after: after, upTo: upTo) }
                return provider.changesRecorded
            }
            return stream(for: session, view: key, every: Self.historyInterval, changes: changes) {
                try await JSONCoding.encoder.encode(
                    provider.notifications.reports(appID: appID, before: before, limit: limit))
            }
        }
        router.get("console/api/simulators/:index/stream") { request, context -> Response in
            let session = try await requireSession(request)
            let index = try deviceIndex(context)
            // What the device shows differs by who looks: all apps for the admin, one app for its key.
            let scope = deviceScope(session) ?? "all"
            let changes = LiveFeeds.Changes { after, upTo in await deviceChanges(index, after: after, upTo: upTo) }
            return stream(
                for: session, view: "device \(index) \(scope)", every: Self.deviceInterval, changes: changes
            ) {
                let allowed = try await visibleBundleIDs(session, device: index)
                let screen = JSONObject([
                    ("activities", .array(visible(try await deviceJSON(index, "activities"), allowed: allowed))),
                    ("notifications", .array(visible(try await deviceJSON(index, "notifications"), allowed: allowed))),
                    ("pending", .array(visible(try await deviceJSON(index, "pending"), allowed: allowed))),
                    ("widgets", .array(visible(try await deviceJSON(index, "widgets"), allowed: allowed))),
                ])
                // Sorted keys: the device writes dictionaries (userInfo, labels) in an order that changes between
                // answers, and an event goes out only when the bytes change, so an unsorted screen would redraw the
                // phone every second (and wipe a reply being typed).
                return try JSONCoding.encoder.encode(JSONValue.object(screen))
            }
        }
    }

    /// A Server-Sent Events answer: an event each time view `view` changes (read by `read` every `interval`, or after
    /// each of `changes` at most that often; once for every tab showing it: ``LiveFeeds``), a comment when nothing
    /// changed, until the browser goes away or the session ends (sign-out, its key revoked, its app deleted). A failed
    /// read is sent as a `problem` event and tried again. A session may have ``ConsoleSessions/streamsPerSession``
    /// open at once; one more is answered 429.
    func stream(
        for session: ConsoleSessions.Session, view: String, every interval: Duration,
        changes: LiveFeeds.Changes? = nil, read: @escaping @Sendable () async throws -> Data
    ) -> Response {
        let sessions = console.sessions
        guard sessions.beginStream(sessionID: session.id) else {
            let message =
                "this session has \(ConsoleSessions.streamsPerSession) live views open already: close a console tab"
            return ConsoleRequest.json(
                Data(#"{"error":{"code":"too_many_streams","message":"\#(message)","status":429}}"#.utf8),
                status: .tooManyRequests)
        }
        var headers = ConsoleRequest.securityHeaders
        headers[.contentType] = "text/event-stream"
        let updates = console.feeds.subscribe(view, every: interval, changes: changes, read: read)
        let (console, provider) = (self.console, self.provider)
        return Response(
            status: .ok, headers: headers,
            body: .init { writer in
                defer { sessions.endStream(sessionID: session.id) }
                for await update in updates {
                    // Each update (at least one a second, the keep-alive) first checks that the session is still
                    // signed in and its key still valid: sign-out, a revoked key or a deleted app ends the stream.
                    do {
                        guard try await sessions.isOpen(id: session.id),
                            try await console.confirmed(session.stored, by: provider) != nil
                        else { break }
                    } catch {
                        // The database did not answer: checked again at the next update, the stream goes on.
                    }
                    switch update {
                    case .changed(let data):
                        try await writer.write(ByteBuffer(string: "data: \(String(decoding: data, as: UTF8.self))\n\n"))
                    case .problem(let message):
                        try await writer.write(ByteBuffer(string: "event: problem\ndata: \(message)\n\n"))
                    case .unchanged:
                        try await writer.write(ByteBuffer(string: ": still here\n\n"))
                    }
                }
                try await writer.finish(nil)
            })
    }
}
