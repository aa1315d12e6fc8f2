import APNSCore
import Foundation
import HTTPTypes
import Hummingbird

extension DeviceAPI {
    /// The body of `POST /apps/{bundleID}/activities`.
    struct StartActivityBody: Decodable {
        var type: String
        var attributes: JSONValue?
        var contentState: JSONValue?
        /// Subscribe it to this broadcast channel.
        var channel: String?
        /// Give it a push token of its own (the default when no channel is given).
        var pushToken: Bool?
        /// `standard` (the default) or `transient`.
        var style: String?
        /// The alert it shows: at a scheduled start, or now.
        var alert: ActivityAlertInput?
        /// A scheduled start (UNIX seconds, iOS 26): `pending` until then; it needs an `alert`.
        var start: Double?
    }

    /// The body of `POST /activities/{id}/update` and `.../end`.
    struct ChangeActivityBody: Decodable {
        var contentState: JSONValue?
        /// For an end: `default` (up to four hours on the lock screen) or `immediate`.
        var dismissal: String?
        /// For an update: the alert it shows (`update(_:alertConfiguration:)`).
        var alert: ActivityAlertInput?
    }

    /// `GET /activities`, `GET /activities/push-to-start`, `GET /apps/{bundleID}/push-to-start/{type}` (the token as
    /// text), `POST /apps/{bundleID}/activities`,
    /// `POST /activities/{id}/update`, `POST /activities/{id}/end` (docs/devices.md).
    static func addActivityRoutes(to router: Router<BasicRequestContext>, device: SimulatedDevice) {
        router.get("activities") { _, _ in JSONBody(value: device.activities()) }
        router.get("activities/push-to-start") { _, _ in JSONBody(value: await device.pushToStartTokens()) }
        router.get("apps/:bundleID/push-to-start/:type") { _, context -> Response in
            let bundleID = try context.parameters.require("bundleID")
            let type = try context.parameters.require("type")
            guard let app = device.installedApps.first(where: { $0.bundleID == bundleID }) else {
                throw HTTPError(.notFound, message: "no app \(bundleID) on this device")
            }
            guard let token = await device.pushToStartTokens()[bundleID]?[type] else {
                guard app.activityTypes.contains(type) else {
                    let declared = app.activityTypes.joined(separator: ", ")
                    throw HTTPError(
                        .notFound,
                        message: "\(bundleID) declares no activity type \(type) (its manifest's activityTypes: "
                            + "\(declared.isEmpty ? "none" : declared))")
                }
                throw HTTPError(
                    .serviceUnavailable, headers: [.retryAfter: "1"],
                    message: "\(bundleID) has no push-to-start token for \(type) yet; try again")
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: token + "\n")))
        }
        router.post("apps/:bundleID/activities") { request, context -> EditedResponse<JSONBody<ActivitySummary>> in
            let bundleID = try context.parameters.require("bundleID")
            let body = try await request.decode(as: StartActivityBody.self, context: context)
            do throws(DeviceError) {
                let started = try await device.startActivity(
                    bundleID: bundleID, type: body.type, attributes: body.attributes, contentState: body.contentState,
                    channel: body.channel, pushToken: body.pushToken ?? (body.channel == nil),
                    options: .init(style: body.style, alert: body.alert, start: body.start))
                return EditedResponse(status: .created, response: JSONBody(value: started))
            } catch {
                let installed = device.installedApps.contains { $0.bundleID == bundleID }
                throw HTTPError(installed ? .badRequest : .notFound, message: error.message)
            }
        }
        router.post("activities/:id/update") { request, context in
            let id = try context.parameters.require("id")
            let body = try await request.decode(as: ChangeActivityBody.self, context: context)
            guard let state = body.contentState else {
                throw HTTPError(.badRequest, message: "give the new contentState (a JSON object)")
            }
            return try Self.answer(id, device: device) { () throws(DeviceError) in
                try device.updateActivity(id: id, contentState: state, alert: body.alert)
            }
        }
        router.post("activities/:id/end") { request, context in
            let id = try context.parameters.require("id")
            let body = try await request.decode(as: ChangeActivityBody.self, context: context)
            guard [nil, "default", "immediate"].contains(body.dismissal) else {
                throw HTTPError(.badRequest, message: "dismissal is default or immediate")
            }
            return try Self.answer(id, device: device) { () throws(DeviceError) in
                try device.endActivity(
                    id: id, contentState: body.contentState, immediately: body.dismissal == "immediate")
            }
        }
    }

    /// The activity after a change, or 404 for an unknown one and 400 for a refused change.
    private static func answer(
        _ id: String, device: SimulatedDevice, _ change: () throws(DeviceError) -> ActivitySummary
    ) throws -> JSONBody<ActivitySummary> {
        do throws(DeviceError) {
            return JSONBody(value: try change())
        } catch {
            let known = device.activities().contains { $0.id == id }
            throw HTTPError(known ? .badRequest : .notFound, message: error.message)
        }
    }
}
