package import APNSCore
import Courier
package import Foundation

/// How far one broadcast got: how many subscribed devices it was written to, how many acknowledged it, and how long
/// each acknowledgement took from the moment the gateway accepted the broadcast.
package struct BroadcastReport: Sendable, Hashable {
    package let requestID: UUID
    package let uniqueID: UUID
    package let channelID: APNSChannelID
    package let bundleID: String
    package let receivedAt: Date
    /// Whether the channel kept it for devices that subscribe later.
    package let stored: Bool
    /// The devices it was written to (including later subscribers given the stored copy).
    package var reached = 0
    /// The devices that acknowledged it.
    package var acknowledged = 0
    /// Seconds from acceptance to each acknowledgement, in the order they came.
    package var acknowledgementDelays: [Double] = []

    /// The delay at a percentile (0 to 100) of the acknowledgements, or `nil` before the first.
    package func delay(percentile: Double) -> Double? {
        guard !acknowledgementDelays.isEmpty else { return nil }
        let sorted = acknowledgementDelays.sorted()
        let index = Int((percentile / 100 * Double(sorted.count - 1)).rounded())
        return sorted[min(max(index, 0), sorted.count - 1)]
    }

    /// The report as the admin API answers it; delays in milliseconds.
    package var json: JSONValue {
        func milliseconds(_ seconds: Double?) -> JSONValue {
            seconds.map { .number(JSONNumber(($0 * 1_000_000).rounded() / 1000)) } ?? .null
        }
        return .object(
            JSONObject([
                ("apns-request-id", .string(requestID.lowercasedString)),
                ("apns-unique-id", .string(uniqueID.lowercasedString)),
                ("channel-id", .string(channelID.rawValue)), ("bundle-id", .string(bundleID)),
                ("received", .number(JSONNumber(receivedAt.millisecondsSince1970))), ("stored", .bool(stored)),
                ("reached", .number(JSONNumber(reached))), ("acknowledged", .number(JSONNumber(acknowledged))),
                ("ack-ms-p50", milliseconds(delay(percentile: 50))),
                ("ack-ms-p99", milliseconds(delay(percentile: 99))),
                ("ack-ms-max", milliseconds(acknowledgementDelays.max())),
            ]))
    }
}
