import APNSCore
import Courier
import Foundation

/// Channel management, on the gateway's channel management port: create
/// (`POST /1/apps/<bundle ID>/channels` → 201 with `apns-channel-id`), read (`GET`, with `apns-channel-id` → 200 and the
/// configuration), delete (`DELETE` → 204) and list (`GET /1/apps/<bundle ID>/all-channels` → 200
/// `{"channels": [...]}`); every answer carries `apns-request-id`.
extension ProviderRequestProcessor {
    /// What a channel request asks for.
    private enum ChannelOperation {
        case create, read, delete, list
    }

    /// The answer to a channel management request.
    func answerChannelRequest(
        _ request: ProviderRequest, connection: ConnectionAuthentication,
        token: ProviderTokenCheck
    ) -> ProviderResponse {
        let given = request.header(APNSBroadcastHeaders.Name.requestID).flatMap(APNSMessageID.init(headerValue:))
        let requestIDText = given?.rawValue ?? RandomPool.uuid().lowercasedString
        var response: ProviderResponse
        do {
            response = try performChannelRequest(request, connection: connection, token: token)
            response.apnsID = requestIDText
        } catch let rejection as APNSRequestRejection {
            response = .rejected(rejection, apnsID: requestIDText)
        } catch {
            response = .rejected(APNSRequestRejection(.internalServerError, "\(error)"), apnsID: requestIDText)
        }
        response.idHeader = APNSBroadcastHeaders.Name.requestID
        return response
    }

    private func performChannelRequest(
        _ request: ProviderRequest, connection: ConnectionAuthentication,
        token: ProviderTokenCheck
    ) throws -> ProviderResponse {
        let (bundleID, operation) = try channelOperation(request)
        if let text = request.header(APNSBroadcastHeaders.Name.requestID) {
            _ = try APNSBroadcastHeaders.parseRequestID(text)
        }
        let app = try authorizedApp(bundleID, request: request, connection: connection, token: token)
        switch operation {
        case .create:
            let configuration = try APNSChannelConfiguration(validating: request.body)
            do {
                let channel = try channels.create(for: app, storagePolicy: configuration.storagePolicy)
                var response = ProviderResponse(status: 201, apnsID: "", uniqueID: nil, error: nil)
                response.extraHeaders = [(APNSBroadcastHeaders.Name.channelID, channel.id.rawValue)]
                return response
            } catch {
                throw APNSRequestRejection(
                    .cannotCreateChannelConfig,
                    "\(app) already has \(channels.limitPerApp) channels, the most an app may have in one "
                        + "environment; delete channels it no longer uses")
            }
        case .read:
            let channel = try registeredChannel(request, app: app)
            var response = ProviderResponse(status: 200, apnsID: "", uniqueID: nil, error: nil)
            response.body = Array(
                APNSChannelConfiguration(storagePolicy: channel.storagePolicy).json.encoded())
            return response
        case .delete:
            let channel = try registeredChannel(request, app: app)
            try? channels.delete(channel.id, of: app)
            return ProviderResponse(status: 204, apnsID: "", uniqueID: nil, error: nil)
        case .list:
            var response = ProviderResponse(status: 200, apnsID: "", uniqueID: nil, error: nil)
            let ids = channels.channels(of: app).map { JSONValue.string($0.id.rawValue) }
            response.body = Array(JSONValue.object(JSONObject([("channels", .array(ids))])).encoded())
            return response
        }
    }

    /// The bundle ID and operation a channel request's method and path name.
    ///
    /// - Throws: `BadPath` for a path that is not a channel API's, `MethodNotAllowed` for a method its path does not
    ///   take.
    private func channelOperation(_ request: ProviderRequest) throws -> (String, ChannelOperation) {
        let path = request.path ?? ""
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 5, segments[0].isEmpty, segments[1] == "1", segments[2] == "apps",
            !segments[3].isEmpty, segments[4] == "channels" || segments[4] == "all-channels",
            !path.contains("?")
        else {
            throw APNSRequestRejection(
                .badPath,
                "the path is \(path.isEmpty ? "missing" : path); use /1/apps/<bundle ID>/channels or "
                    + "/1/apps/<bundle ID>/all-channels")
        }
        let method = request.method ?? ""
        let operation: ChannelOperation? =
            switch (segments[4], method) {
            case ("channels", "POST"): .create
            case ("channels", "GET"): .read
            case ("channels", "DELETE"): .delete
            case ("all-channels", "GET"): .list
            default: nil
            }
        guard let operation else {
            let allowed = segments[4] == "channels" ? "POST, GET or DELETE" : "GET"
            throw APNSRequestRejection(.methodNotAllowed, "\(path) takes \(allowed), not \(method)")
        }
        return (String(segments[3]), operation)
    }

    /// The channel a read or delete names in `apns-channel-id`, when it is `app`'s.
    private func registeredChannel(_ request: ProviderRequest, app: BroadcastApp) throws -> BroadcastChannel {
        let id = try APNSBroadcastHeaders.parseChannelID(request.header(APNSBroadcastHeaders.Name.channelID))
        do {
            return try channels.channel(id, of: app)
        } catch {
            throw APNSRequestRejection(
                .channelNotRegistered, "\(app) has no channel \(id): it was never made there, or it was deleted")
        }
    }
}
