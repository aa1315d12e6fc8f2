import APNSCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PushProvider

extension ConsoleRoutes {
    /// How often a live view looks for changes.
    static let historyInterval: Duration = .seconds(1)
    static let deviceInterval: Duration = .milliseconds(300)

    func addLiveRoutes(to router: Router<ProviderRequestContext>) {
        router.get("console/api/history/stream") { request, _ -> Response in
            let session = try requireSession(request)
            let query = request.uri.queryParameters
            guard let appID = query.get("app"), self.session(session, mayRead: appID) else {
                throw ProviderError.invalid(field: "app", message: "name an app this session may see: ?app=<app id>")
            }
            let limit = min(100, max(1, query.get("limit").flatMap { Int($0) } ?? 25))
            let before = query.get("before").flatMap {
                try? Date($0, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            }
            let provider = self.provider
            return stream(for: session, every: Self.historyInterval) {
                try await ConsoleRequest.encoder.encode(
                    provider.notificationReports(appID: appID, before: before, limit: limit))
            }
        }
        router.get("console/api/simulators/:index/stream") { request, context -> Response in
            let session = try requireSession(request)
            let index = try deviceIndex(context)
            return stream(for: session, every: Self.deviceInterval) {
                let screen = JSONObject([
                    ("activities", .array(visible(try await deviceJSON(index, "activities"), session: session))),
                    ("notifications", .array(visible(try await deviceJSON(index, "notifications"), session: session))),
                    ("pending", .array(visible(try await deviceJSON(index, "pending"), session: session))),
                    ("widgets", .array(visible(try await deviceJSON(index, "widgets"), session: session))),
                ])
                // Sorted keys: the device writes dictionaries (userInfo, labels) in an order that changes between
                // answers, and an event goes out only when the bytes change, so an unsorted screen would redraw the
                // phone every second (and wipe a reply being typed).
                return try ConsoleRequest.encoder.encode(JSONValue.object(screen))
            }
        }
    }

    /// A Server-Sent Events answer: `read` every `interval`, and an event each time its answer changes, until the
    /// browser goes away. A failed read is sent as a `problem` event and tried again. A session may have
    /// ``ConsoleSessions/streamsPerSession`` open at once; one more is answered 429.
    func stream(
        for session: ConsoleSessions.Session, every interval: Duration,
        read: @escaping @Sendable () async throws -> Data
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
        return Response(
            status: .ok, headers: headers,
            body: .init { writer in
                defer { sessions.endStream(sessionID: session.id) }
                var last: Data?
                while !Task.isCancelled {
                    let event: String?
                    do {
                        let data = try await read()
                        event = data == last ? nil : "data: \(String(decoding: data, as: UTF8.self))\n\n"
                        last = data
                    } catch {
                        event =
                            "event: problem\ndata: \(String(describing: error).replacingOccurrences(of: "\n", with: " "))\n\n"
                        last = nil
                    }
                    try await writer.write(ByteBuffer(string: event ?? ": still here\n\n"))
                    try await Task.sleep(for: interval)
                }
                try await writer.finish(nil)
            })
    }
}
