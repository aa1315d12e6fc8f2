import APNSCore
import Courier
import Foundation

/// Broadcast channels: switching broadcast on for an app, listing channels and broadcasts.
extension AdminRequestProcessor {
    func switchBroadcast(_ bundleID: String, _ body: AdminRequestBody) throws(AdminError) -> AdminResponse {
        if let problem = APNSTopic.problem(with: bundleID) { throw AdminError(400, problem) }
        guard let enabled = try body.optionalBool("enabled") else {
            throw AdminError(400, #"the body needs "enabled": true or false"#)
        }
        let app = BroadcastApp(bundleID: bundleID, environment: try environment(body.optionalString("environment")))
        channels.setBroadcastEnabled(enabled, for: app)
        return .json(
            200,
            [
                "bundle-id": .string(bundleID), "environment": .string(app.environment.rawValue),
                "enabled": .bool(enabled),
            ])
    }

    func listChannels(_ query: AdminQuery) throws(AdminError) -> AdminResponse {
        let environment = try environment(query["environment"])
        let listed = channels.all
            .filter { query["bundle-id"] == nil || $0.bundleID == query["bundle-id"] }
            .filter { query["environment"] == nil || $0.environment == environment }
            .sorted { ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue) }
            .prefix(10_000)
            .map { channel -> JSONValue in
                guard case .object(var object) = channel.json else { return .null }
                object["subscribers"] = .number(JSONNumber(channels.subscriberCount(channel.id)))
                return .object(object)
            }
        return .json(200, ["channels": .array(Array(listed))])
    }

    func listBroadcasts(_ query: AdminQuery) throws(AdminError) -> AdminResponse {
        let channel = try query["channel-id"].map { text throws(AdminError) in try parseChannel(text) }
        return .json(200, ["broadcasts": .array(channels.reports(channel: channel).map(\.json))])
    }

    func environment(_ name: String?) throws(AdminError) -> APNSEnvironment {
        guard let name else { return .development }
        guard let environment = APNSEnvironment(name: name) else {
            throw AdminError(400, "environment '\(name)' is not development or production")
        }
        return environment
    }

    func parseChannel(_ text: String) throws(AdminError) -> APNSChannelID {
        guard let channel = APNSChannelID(rawValue: text) else {
            throw AdminError(400, APNSChannelID.problem(with: text) ?? "not a channel ID")
        }
        return channel
    }
}
