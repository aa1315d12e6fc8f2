import APNSCore
import Foundation
import ProviderStorage

extension FeedbackRoutes {
    /// `POST /v1/feedback`: what a device reports about a notification, in `herald device --report-url`'s form.
    /// Read from the body's checked tree (``JSONCoding/checkedTree(_:from:)``) field by field: the busiest public
    /// route (a storm is every phone of a broadcast reporting twice) parses its body once, not twice.
    struct FeedbackInput {
        /// `delivered`, `displayed`, `response` (with `action`), `opened`, `dismissed` or `action`.
        var event: String
        /// The notification's `apns-id`, as the device received it.
        var apnsID: String
        /// For a response: `default` (opened), `dismiss`, or an action identifier.
        var action: String?
        /// A text-input action's reply.
        var text: String?
        var time: Date?
        /// The device token the notification reached: with the publishable key, the proof that the caller holds
        /// the delivery's device.
        var token: String?
        /// For `event: outcome`: what became of it (``DeliveryOutcome``), and the device's words for it.
        var outcome: String?
        var detail: String?

        /// Reads a report; a field of the wrong type is named with what it must be, as the API's decoder names it.
        init(json: JSONValue) throws(ProviderError) {
            guard let object = json.object else {
                throw .invalid(
                    field: nil, message: "the body must be a JSON object, such as {\"event\": \"delivered\"}")
            }
            func string(_ key: String) throws(ProviderError) -> String? {
                switch object[key] {
                case nil, .null?: return nil
                case .string(let text)?: return text
                default: throw .invalid(field: key, message: "must be a string")
                }
            }
            func required(_ key: String) throws(ProviderError) -> String {
                if object[key] == .null { throw .invalid(field: key, message: "must be a string, not null") }
                guard let text = try string(key) else { throw .invalid(field: key, message: "is required") }
                return text
            }
            event = try required("event")
            apnsID = try required("apnsID")
            action = try string("action")
            text = try string("text")
            token = try string("token")
            outcome = try string("outcome")
            detail = try string("detail")
            time = try string("time").map { (text: String) throws(ProviderError) -> Date in
                guard let date = Date(apiTime: text) else {
                    throw .invalid(field: "time", message: Date.apiTimeExpected)
                }
                return date
            }
        }
    }

    /// The answer to a report: the event recorded, whether it was recorded before (then nothing was counted again),
    /// whether a reply's text replaced the one recorded, and the time recorded when it is not the one given.
    struct Answer {
        var recorded: String
        var repeated: Bool?
        var replaced: String?
        var time: Date?
        var timeAdjusted: String?

        /// The answer as the API writes JSON: keys sorted, absent fields left out, the time ISO 8601.
        var json: JSONValue {
            var members: [(key: String, value: JSONValue)] = [("recorded", .string(recorded))]
            if let repeated { members.append(("repeated", .bool(repeated))) }
            if let replaced { members.append(("replaced", .string(replaced))) }
            if let time { members.append(("time", .string(time.iso8601Milliseconds))) }
            if let timeAdjusted { members.append(("timeAdjusted", .string(timeAdjusted))) }
            return .object(JSONObject(members))
        }
    }
}
