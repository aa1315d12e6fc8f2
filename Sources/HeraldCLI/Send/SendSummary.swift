import APNSClient
import APNSCore
import Foundation
import Synchronization

/// What `herald send` did: counts by result and reason, retries, time and where it went; and the first results in
/// full.
final class SendSummary: Sendable {
    /// At most this many results are kept one by one (all of them for small sends).
    static let keptResults = 100

    struct Counts {
        var sent = 0
        var accepted = 0
        var rejected: [String: Int] = [:]
        var retried = 0
        var firstMessages: [String: String] = [:]
        var results: [(token: String, result: APNSResult)] = []
        var timing = SendTiming()
    }

    private let counts = Mutex(Counts())
    private let started = ContinuousClock.now

    /// A notification ended.
    func record(token: String, _ result: APNSResult) {
        counts.withLock { counts in
            counts.sent += 1
            switch result {
            case .accepted: counts.accepted += 1
            case .rejected(let rejection):
                counts.rejected[rejection.reason.rawValue, default: 0] += 1
                if counts.firstMessages[rejection.reason.rawValue] == nil {
                    counts.firstMessages[rejection.reason.rawValue] = rejection.message
                }
            }
            if counts.results.count < Self.keptResults { counts.results.append((token, result)) }
        }
    }

    /// A line of the token file that is no device token: APNs would answer `BadDeviceToken`, so it is not sent.
    /// It was never sent, so it has no status.
    func recordInvalidToken(_ text: String, message: String) {
        record(token: text, .rejected(APNSRejection(status: nil, reason: .badDeviceToken, message: message)))
    }

    /// A notification will be sent again.
    func recordRetry() {
        counts.withLock { $0.retried += 1 }
    }

    /// APNs answered a notification `latency` after it was first written.
    func recordAnswer(after latency: Duration) {
        counts.withLock { $0.timing.answered(after: latency) }
    }

    /// A connection measured the round trip.
    func recordRoundTrip(_ roundTrip: Duration) {
        counts.withLock { $0.timing.measured(roundTrip) }
    }

    /// A connection may keep `limit` streams in flight.
    func recordStreamLimit(_ limit: Int) {
        counts.withLock { $0.timing.streamsAllowed(limit) }
    }

    /// `count` connections are open.
    func recordConnections(_ count: Int) {
        counts.withLock { $0.timing.connectionsOpen(count) }
    }

    var snapshot: Counts { counts.withLock { $0 } }

    /// Seconds since the send started.
    var seconds: Double {
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    var allAccepted: Bool { counts.withLock { $0.rejected.isEmpty } }

    /// The summary for a person.
    func text() -> String {
        let counts = snapshot
        let seconds = seconds
        var lines: [String] = []
        if counts.sent <= 1, let (token, result) = counts.results.first {
            lines.append(Self.describe(token: token, result))
        }
        let rejected = counts.rejected.values.reduce(0, +)
        lines.append(
            "sent \(counts.sent): \(counts.accepted) accepted, \(rejected) rejected, \(counts.retried) retried in "
                + String(format: "%.2f s (%.0f notifications/s)", seconds, Double(counts.sent) / max(seconds, 1e-9)))
        for (reason, count) in counts.rejected.sorted(by: { $0.value > $1.value }) {
            lines.append("  \(reason): \(count) (\(counts.firstMessages[reason] ?? ""))")
            if let meaning = APNSReason(rawValue: reason).meaning { lines.append("    that is: \(meaning)") }
            if let change = APNSReason(rawValue: reason).change { lines.append("    next: \(change)") }
            if counts.sent > 1 { lines += Self.refusedIDs(reason, counts) }
        }
        if counts.sent > 1 { lines += Self.timingLines(counts.timing, sent: counts.sent, seconds: seconds) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The summary as one JSON object: `sent`, `accepted`, `rejected` (reason to count), `retried`, `seconds`,
    /// `notificationsPerSecond`, where the time went (`roundTripMilliseconds`, `averageInFlight`, `streamLimit`,
    /// `connections`, `limitPerSecond`, `ofLimit`, `bottleneck`), and `results` (each notification's result, for up
    /// to 100 notifications).
    func json() -> String {
        let counts = snapshot
        let seconds = seconds
        var rejected = JSONObject()
        for (reason, count) in counts.rejected.sorted(by: { $0.key < $1.key }) {
            rejected[reason] = .number(JSONNumber(count))
        }
        var object = JSONObject([
            (key: "sent", value: .number(JSONNumber(counts.sent))),
            (key: "accepted", value: .number(JSONNumber(counts.accepted))),
            (key: "rejected", value: .object(rejected)),
            (key: "retried", value: .number(JSONNumber(counts.retried))),
            (key: "seconds", value: .number(JSONNumber((seconds * 1000).rounded() / 1000))),
            (
                key: "notificationsPerSecond",
                value: .number(JSONNumber((Double(counts.sent) / max(seconds, 1e-9)).rounded()))
            ),
        ])
        for (key, value) in Self.timingJSON(counts.timing, sent: counts.sent, seconds: seconds) {
            object[key] = value
        }
        if counts.sent <= Self.keptResults {
            object["results"] = .array(counts.results.map { Self.json(token: $0.token, $0.result) })
        }
        return String(decoding: JSONValue.object(object).encoded(), as: UTF8.self) + "\n"
    }

    private static func timingLines(_ timing: SendTiming, sent: Int, seconds: Double) -> [String] {
        guard let roundTrip = timing.roundTrip else { return [] }
        let rate = Double(sent) / max(seconds, 1e-9)
        var line = String(
            format:
                "round trip %@ (%@), %.0f notifications in flight on average (first write to result), %d streams allowed on each of %d "
                + "connection%@", SendTiming.milliseconds(roundTrip),
            timing.roundTripMeasured ? "PING" : "the fastest answer", timing.averageInFlight(over: seconds),
            timing.streamLimit, timing.connections, timing.connections == 1 ? "" : "s")
        if let limit = timing.limitPerSecond {
            line += String(format: ": at most %.0f/s, reached %.2f of it", limit, rate / limit)
        }
        var lines = [line]
        if let bottleneck = timing.bottleneck(rate: rate, seconds: seconds) {
            lines.append("held back by \(bottleneck)")
        }
        return lines
    }

    private static func timingJSON(_ timing: SendTiming, sent: Int, seconds: Double) -> [(String, JSONValue)] {
        let rate = Double(sent) / max(seconds, 1e-9)
        let limit = timing.limitPerSecond
        return [
            (
                "roundTripMilliseconds",
                timing.roundTrip.map { .number(JSONNumber(($0 * 10_000).rounded() / 10)) } ?? .null
            ),
            ("averageInFlight", .number(JSONNumber((timing.averageInFlight(over: seconds) * 10).rounded() / 10))),
            ("streamLimit", .number(JSONNumber(timing.streamLimit))),
            ("connections", .number(JSONNumber(timing.connections))),
            ("limitPerSecond", limit.map { .number(JSONNumber($0.rounded())) } ?? .null),
            ("ofLimit", limit.map { .number(JSONNumber((rate / $0 * 1000).rounded() / 1000)) } ?? .null),
            ("bottleneck", timing.bottleneck(rate: rate, seconds: seconds).map { .string($0) } ?? .null),
        ]
    }

    /// The apns-ids of the pushes refused for `reason` among the results kept, so `herald why ID` can be asked of each.
    private static func refusedIDs(_ reason: String, _ counts: Counts) -> [String] {
        // Every refused push among the results kept (all of them for a send of up to ``keptResults``).
        let ids = counts.results.compactMap { _, result -> String? in
            guard case .rejected(let rejection) = result, rejection.reason.rawValue == reason else { return nil }
            return rejection.apnsID
        }
        guard !ids.isEmpty else { return [] }
        let total = counts.rejected[reason] ?? ids.count
        let more =
            total > ids.count ? " (and \(total - ids.count) more, past the first \(keptResults) results kept)" : ""
        return ["    apns-ids: " + ids.joined(separator: ", ") + more, "    ask: herald why \(ids[0])"]
    }

    private static func describe(token: String, _ result: APNSResult) -> String {
        switch result {
        case .accepted(let acceptance):
            let unique = acceptance.uniqueID.map { ", apns-unique-id \($0)" } ?? ""
            return "\(token): accepted, apns-id \(acceptance.apnsID)\(unique)"
        case .rejected(let rejection):
            let since = rejection.timestamp.map { " (invalid since \(ISO8601DateFormatter().string(from: $0)))" } ?? ""
            let id = rejection.apnsID.map { ", apns-id \($0)" } ?? ""
            guard let status = rejection.status else {
                return "\(token): \(rejection.reason), not answered by APNs\(id): \(rejection.message)"
            }
            return "\(token): rejected, \(status) \(rejection.reason)\(since)\(id)"
        }
    }

    private static func json(token: String, _ result: APNSResult) -> JSONValue {
        var object = JSONObject([(key: "token", value: .string(token))])
        switch result {
        case .accepted(let acceptance):
            object["status"] = 200
            object["apns-id"] = .string(acceptance.apnsID)
            if let unique = acceptance.uniqueID { object["apns-unique-id"] = .string(unique) }
        case .rejected(let rejection):
            object["status"] = rejection.status.map { .number(JSONNumber($0)) } ?? .null
            object["reason"] = .string(rejection.reason.rawValue)
            if let id = rejection.apnsID { object["apns-id"] = .string(id) }
            if let timestamp = rejection.timestamp {
                object["timestamp"] = .number(JSONNumber(Int((timestamp.timeIntervalSince1970 * 1000).rounded())))
            }
            object["message"] = .string(rejection.message)
        }
        return .object(object)
    }
}
