import CoreLocation
import Foundation
import HTTPTypes
import HeraldSupport
import Hummingbird
import Logging
import NIOCore
import UserNotifications

/// The device's local JSON API (docs/devices.md): what a script uses to see and act on notifications.
///
/// | route | what it does |
/// | --- | --- |
/// | `GET /apps` | the installed apps with `bundleID`, `token`, `publicKey`, `badge`, `activityTypes` |
/// | `GET /apps/{bundleID}/token` | the app's device token as plain text (`TOKEN=$(curl -s …)`); 503 until registered |
/// | `GET /notifications` | delivered notifications, newest first |
/// | `GET /notifications/{id}` | one, expanded (its content extension's view) |
/// | `POST /notifications/{id}/respond` | `{"action": "default" \| "dismiss" \| identifier, "text": "..."}` |
/// | `DELETE /notifications` | clear Notification Center |
/// | `POST /apps/{bundleID}/notifications` | schedule a local notification |
/// | `GET /widgets` | each app's push-updated widgets and controls: tokens, reloads in 24 hours, budget |
/// | `GET /pending` | local notifications waiting for their trigger, soonest first |
/// | `POST /location` | `{"latitude": ..., "longitude": ...}`: move the device |
/// | `POST /apps/{bundleID}/settings` | `{"notifications", "alerts", "foreground"}`: what the person changes in Settings |
/// | `GET /notifications/{id}/attachments/{identifier}` | an attachment's file |
/// | `GET /events[?apns-id=]` | the device's recent events (all, or one notification's), oldest first |
/// | `GET /changes[?after=N&wait=S]` | how often what the device shows changed; with `after`, waits for the next change |
/// | `GET /activities` | Live Activities with state, content, push token and channel |
/// | `GET /activities/push-to-start` | each app's push-to-start tokens by attributes type |
/// | `POST /apps/{bundleID}/activities` | `{"type", "attributes", "contentState", "channel", "pushToken"}`: start one |
/// | `POST /activities/{id}/update`, `.../end` | `{"contentState", "dismissal": "immediate"}` |
package struct DeviceAPI: Sendable {
    private let device: SimulatedDevice
    private let journal = DeviceEventJournal()

    package init(device: SimulatedDevice) {
        self.device = device
    }

    /// Serves the API on `host:port` (0 picks a free port). Run in a service group (a command's), it stops
    /// gracefully when the group shuts down: the listener closes and the connections still open get 2 s to end.
    /// Cancelling the task stops it at once.
    ///
    /// - Parameters:
    ///   - host: the address to listen on.
    ///   - port: the port; 0 picks a free one.
    ///   - onListening: called with the bound port once the server accepts connections.
    /// - Throws: when the server cannot bind or stops with an error.
    package func run(host: String, port: Int, onListening: @escaping @Sendable (Int) async -> Void) async throws {
        let application = Application(
            router: makeRouter(),
            server: HTTPServerLimits(maximumConnections: 256).server(),
            configuration: .init(address: .hostname(host, port: port), serverName: "herald-device"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: Self.quietLogger
        )
        let events = device.events()
        let journal = self.journal
        let recorder = Task { await journal.record(events) }
        defer { recorder.cancel() }
        // A watcher waiting on `GET /changes` is answered at once, so its connection ends with the grace period.
        let changes = device.screenChanges
        try await serveUntilShutdown(application, gracePeriod: .seconds(2), onShutdown: { changes.notify() })
    }

    /// The server's own logs stay quiet: failures to start are thrown, and requests are answered with their errors.
    private static let quietLogger: Logger = {
        var logger = Logger(label: "herald-device-api")
        logger.logLevel = .critical
        return logger
    }()

    private struct RespondBody: Decodable {
        var action: String
        var text: String?
    }

    private struct RespondAnswer: ResponseEncodable {
        var id: String
        var action: String
        var text: String?
        var deliveredToApp: Bool
        var dismissed: Bool
        var contentExtensionOption: String?
    }

    private struct Location: Decodable {
        var latitude: Double
        var longitude: Double
    }

    /// One app's device token as a line of text, for a shell variable; 503 (with `Retry-After`, which
    /// `curl --retry` honours) while the app has not registered yet, 404 naming the installed apps.
    private static func token(of bundleID: String, on device: SimulatedDevice) throws -> Response {
        let apps = device.installedApps
        guard let app = apps.first(where: { $0.bundleID == bundleID }) else {
            let installed = apps.map(\.bundleID).joined(separator: ", ")
            throw HTTPError(.notFound, message: "no app \(bundleID) on this device; installed: \(installed)")
        }
        guard let token = app.token else {
            throw HTTPError(
                .serviceUnavailable, headers: [.retryAfter: "1"],
                message: "\(bundleID) has no token yet: the device has not registered it with the gateway; try again")
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: token + "\n")))
    }

    private func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: LocalCallerMiddleware())
        let device = self.device
        router.get("apps") { _, _ in device.installedApps }
        router.get("apps/:bundleID/token") { _, context -> Response in
            try Self.token(of: try context.parameters.require("bundleID"), on: device)
        }
        router.get("notifications") { _, _ in await device.notifications() }
        router.get("pending") { _, _ in device.pendingNotifications() }
        router.get("widgets") { _, _ in device.widgetSummaries() }
        router.get("notifications/:id") { _, context in
            let id = try context.parameters.require("id")
            do throws(DeviceError) {
                return JSONBody(value: try await device.expand(id))
            } catch {
                throw HTTPError(.notFound, message: error.message)
            }
        }
        router.post("notifications/:id/respond") { request, context -> RespondAnswer in
            let id = try context.parameters.require("id")
            let body = try await request.decode(as: RespondBody.self, context: context)
            do throws(DeviceError) {
                let outcome = try await device.respond(to: id, action: body.action, text: body.text)
                return RespondAnswer(
                    id: id, action: body.action,
                    text: (outcome.response as? UNTextInputNotificationResponse)?.userText,
                    deliveredToApp: outcome.deliveredToApp, dismissed: outcome.dismissed,
                    contentExtensionOption: outcome.contentExtensionOption.map { "\($0)" })
            } catch {
                let known = await device.notifications().contains { $0.id == id }
                throw HTTPError(known ? .badRequest : .notFound, message: error.message)
            }
        }
        router.get("notifications/:id/attachments/:identifier") { _, context -> Response in
            let id = try context.parameters.require("id")
            let identifier = try context.parameters.require("identifier")
            guard let notification = await device.notifications().first(where: { $0.id == id }),
                let attachment = notification.attachments.first(where: { $0.identifier == identifier })
            else { throw HTTPError(.notFound, message: "notification \(id) has no attachment \(identifier)") }
            guard let data = FileManager.default.contents(atPath: attachment.path) else {
                throw HTTPError(.notFound, message: "the attachment's file is gone")
            }
            return Response(
                status: .ok, headers: [.contentType: Self.mimeTypes[attachment.type] ?? "application/octet-stream"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        let journal = self.journal
        router.get("events") { request, _ -> Response in
            let events = journal.events(apnsID: request.uri.queryParameters.get("apns-id"))
            var body = Data("[".utf8)
            body.append(contentsOf: events.map(\.reportJSON).joined(separator: Data(",".utf8)))
            body.append(contentsOf: Data("]".utf8))
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.delete("notifications") { _, _ -> HTTPResponse.Status in
            device.clear()
            return .noContent
        }
        router.post("apps/:bundleID/notifications") { request, context -> Response in
            let bundleID = try context.parameters.require("bundleID")
            let body = try await request.decode(as: LocalNotificationBody.self, context: context)
            do throws(DeviceError) {
                let notification = try body.makeRequest()
                try await device.schedule(notification, for: bundleID)
                let json = Data(#"{"identifier":"\#(notification.identifier)"}"#.utf8)
                return Response(
                    status: .created, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: json)))
            } catch {
                let status: HTTPResponse.Status =
                    device.installedApps.contains { $0.bundleID == bundleID }
                    ? .badRequest : .notFound
                throw HTTPError(status, message: error.message)
            }
        }
        router.post("location") { request, context -> HTTPResponse.Status in
            let location = try await request.decode(as: Location.self, context: context)
            await device.updateLocation(
                CLLocationCoordinate2D(latitude: location.latitude, longitude: location.longitude))
            return .noContent
        }
        Self.addActivityRoutes(to: router, device: device)
        Self.addSettingsRoutes(to: router, device: device)
        Self.addChangeRoutes(to: router, device: device)
        return router
    }
}

extension DeviceAPI {
    /// The media type of each attachment type iOS accepts.
    static let mimeTypes: [String: String] = [
        "public.aiff-audio": "audio/aiff", "com.microsoft.waveform-audio": "audio/wav", "public.mp3": "audio/mpeg",
        "public.mpeg-4-audio": "audio/mp4", "public.jpeg": "image/jpeg", "com.compuserve.gif": "image/gif",
        "public.png": "image/png", "public.mpeg": "video/mpeg", "public.mpeg-2-video": "video/mp2t",
        "public.mpeg-4": "video/mp4", "public.avi": "video/x-msvideo",
    ]
}

/// Any encodable value as a JSON response, encoded as itself.
struct JSONBody<Value: Encodable & Sendable>: ResponseEncodable {
    let value: Value

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}
