import APNSCore
import ArgumentParser
import Foundation

/// `herald send`'s Live Activity flags (push type `liveactivity`): the `aps` keys of a start,
/// update or end, for device pushes and broadcasts alike.
struct LiveActivityOptions: ParsableArguments {
    @Option(help: "aps.event of a Live Activity push: start, update or end.")
    var event: String?

    @Option(name: .customLong("content-state"), help: "aps.content-state: the activity's new state, a JSON object.")
    var contentState: String?

    @Option(help: "aps.timestamp: UNIX seconds (now when --event is given without it); older updates are ignored.")
    var timestamp: Int?

    @Option(name: .customLong("stale-date"), help: "aps.stale-date: UNIX seconds after which the content is stale.")
    var staleDate: Int?

    @Option(
        name: .customLong("dismissal-date"), help: "aps.dismissal-date: UNIX seconds when an ended activity leaves.")
    var dismissalDate: Int?

    @Option(name: .customLong("relevance-score"), help: "aps.relevance-score: which activity the system shows first.")
    var relevanceScore: Double?

    @Option(name: .customLong("attributes-type"), help: "aps.attributes-type of a start: the ActivityAttributes type.")
    var attributesType: String?

    @Option(help: "aps.attributes of a start: the activity's fixed attributes, a JSON object.")
    var attributes: String?

    @Option(
        name: .customLong("input-push-channel"), help: "aps.input-push-channel of a start: subscribe it to a channel.")
    var inputPushChannel: String?

    @Flag(name: .customLong("input-push-token"), help: "aps.input-push-token = 1 on a start: ask for an update token.")
    var inputPushToken = false

    /// Whether any Live Activity flag was given.
    var isEmpty: Bool {
        event == nil && contentState == nil && timestamp == nil && staleDate == nil && dismissalDate == nil
            && relevanceScore == nil && attributesType == nil && attributes == nil && inputPushChannel == nil
            && !inputPushToken
    }

    /// `payload` with the flags applied to its `aps`.
    func apply(to payload: APNSPayload, now: Date = Date()) throws(UsageError) -> APNSPayload {
        guard !isEmpty else { return payload }
        var payload = payload
        var aps = payload.aps
        if let event {
            guard ["start", "update", "end"].contains(event) else {
                throw UsageError("--event is start, update or end; got '\(event)'")
            }
            aps["event"] = .string(event)
            if timestamp == nil, aps["timestamp"] == nil {
                aps["timestamp"] = .number(JSONNumber(Int(now.timeIntervalSince1970)))
            }
        }
        if let contentState { aps["content-state"] = .object(try Self.object(contentState, "--content-state")) }
        if let attributes { aps["attributes"] = .object(try Self.object(attributes, "--attributes")) }
        if let timestamp { aps["timestamp"] = .number(JSONNumber(timestamp)) }
        if let staleDate { aps["stale-date"] = .number(JSONNumber(staleDate)) }
        if let dismissalDate { aps["dismissal-date"] = .number(JSONNumber(dismissalDate)) }
        if let relevanceScore { aps["relevance-score"] = .number(JSONNumber(relevanceScore)) }
        if let attributesType { aps["attributes-type"] = .string(attributesType) }
        if let inputPushChannel { aps["input-push-channel"] = .string(inputPushChannel) }
        if inputPushToken { aps["input-push-token"] = 1 }
        payload.aps = aps
        return payload
    }

    private static func object(_ text: String, _ flag: String) throws(UsageError) -> JSONObject {
        guard case .object(let object)? = try? JSONValue(parsing: Data(text.utf8)) else {
            throw UsageError(#"\#(flag) is a JSON object, such as '{"score": "1-0"}'; got '\#(text.prefix(80))'"#)
        }
        return object
    }
}
