import APNSClient
import APNSCore
import ArgumentParser
import Foundation
import NIOCore

extension SendCommand {
    /// `--channel`: one broadcast to the channel's subscribers.
    func broadcast(to channelText: String, io: CommandIO) async throws {
        guard tokens.isEmpty, tokenFile == nil else {
            throw UsageError(
                "a broadcast goes to the channel's subscribers: give --channel or --token/--tokens, not both")
        }
        guard let channelID = APNSChannelID(rawValue: channelText) else {
            throw UsageError("--channel: \(APNSChannelID.problem(with: channelText) ?? "not a channel ID")")
        }
        guard var bundleID = headers.topic else { throw UsageError("say which app's channel it is: --topic BUNDLE_ID") }
        let suffix = APNSPushType.liveactivity.topicSuffix ?? ""
        if bundleID.hasSuffix(suffix) { bundleID.removeLast(suffix.count) }
        if let pushType = headers.pushType, pushType.lowercased() != APNSPushType.liveactivity.rawValue {
            throw UsageError("a broadcast's push type is liveactivity; leave --push-type out or give liveactivity")
        }
        guard headers.collapseID == nil else { throw UsageError("a broadcast has no apns-collapse-id") }
        let request = try SendRequest.make(
            payloadPath: payload ?? (quick.isEmpty && activity.isEmpty ? "-" : nil), quick: quick,
            activity: activity, io: io,
            headers: APNSHeaderValues(
                pushType: "liveactivity", priority: headers.priority ?? "10", topic: bundleID + suffix,
                expiration: headers.expiration ?? "0"))
        for warning in request.warnings { io.writeError("warning: \(warning)\n") }
        let headers: APNSBroadcastHeaders
        do {
            headers = APNSBroadcastHeaders(
                channelID: channelID, priority: request.headers.effectivePriority,
                expiration: request.headers.expiration,
                requestID: try self.headers.apnsID.map(APNSBroadcastHeaders.parseRequestID))
        } catch {
            throw UsageError("--apns-id: \(error.message)")
        }
        let endpoint = try target.endpoint()
        let authentication = try target.authentication()
        if printCurl {
            var authorization: String?
            if case .token(let signer, _) = authentication {
                authorization = try await signer.token(issuedAt: Date()).authorizationHeaderValue
            }
            io.write(
                CurlCommand(
                    endpoint: endpoint, caFile: target.caFile, headerFields: headers.headerFields,
                    authorization: authorization,
                    certificate: target.cert.map { (path: $0, password: target.certPassword, key: target.certKey) },
                    payload: request.body, path: APNSBroadcastHeaders.path(bundleID: bundleID)
                ).text)
            return
        }
        var configuration = APNSPushClient.Configuration(endpoint: endpoint, authentication: authentication)
        configuration.timeout = .milliseconds(Int(timeout * 1000))
        configuration.logger = logging.logger("herald-send")
        let client = try APNSPushClient(configuration: configuration)
        let result = try await client.send(
            APNSNotification(
                broadcast: APNSBroadcast(bundleID: bundleID, headers: headers), payload: ByteBuffer(bytes: request.body)
            ))
        await client.shutdown()
        switch result {
        case .accepted(let acceptance):
            io.write(
                "broadcast on channel \(channelID): accepted, apns-request-id \(acceptance.apnsID), apns-unique-id "
                    + "\(acceptance.uniqueID ?? "-")\n")
        case .rejected(let rejection):
            io.writeError("broadcast on channel \(channelID): \(rejection)\n")
            throw ExitCode(1)
        }
    }
}
