import APNSCore
import Foundation
import ProviderStorage
import PushProvider

/// How `herald why` prints what it found.
enum WhyRendering {
    static let decoder = JSONDecoder.heraldAPI()
    private static let encoder = JSONEncoder.heraldAPI()

    static func text(_ trace: DeliveryTrace, _ verdict: DeliveryVerdict) -> String {
        "herald why \(trace.apnsID): notification \(trace.notificationID), one device\n"
            + line(token: trace.token, verdict)
    }

    static func text(apnsID: String, token: String?, _ verdict: DeliveryVerdict) -> String {
        "herald why \(apnsID): not sent through the provider; the local APNs' log\n" + line(token: token, verdict)
    }

    static func text(_ breakdown: NotificationBreakdown, devices: [DeliveryTrace], filtered: String?) -> String {
        var out = "herald why \(breakdown.notificationID): \(breakdown.targeted) device(s)"
        out += breakdown.undecided > 0 ? ", \(breakdown.undecided) not decided yet\n" : "\n"
        for entry in breakdown.verdicts {
            let reasons = entry.reasons.map { reasons in
                " (" + reasons.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
            }
            out += "  \(String(entry.count).leftPadded(8))  \(entry.verdict): \(entry.sentence)\(reasons ?? "")\n"
        }
        if breakdown.verdicts.isEmpty { out += "  nothing targeted: no device matched the notification's target\n" }
        if let note = breakdown.note { out += "note: \(note)\n" }
        if !devices.isEmpty {
            out += filtered.map { "devices with verdict \($0):\n" } ?? "the first devices:\n"
            for trace in devices { out += line(token: trace.token, trace.verdict) }
        }
        if filtered == nil, breakdown.verdicts.count > 1 {
            out += "list one verdict's devices: herald why \(breakdown.notificationID) --verdict VERDICT\n"
        }
        return out
    }

    private static func line(token: String?, _ verdict: DeliveryVerdict?) -> String {
        guard let verdict else { return "" }
        let device = token.map { "token \($0.prefix(12))…" } ?? "a device"
        var out = "  \(device)  \(verdict.verdict): \(verdict.sentence)\n"
        if let next = verdict.next { out += "      next: \(next)\n" }
        if let waiting = verdict.waitingFor { out += "      waiting for: \(waiting)\n" }
        return out
    }

    static func json(_ trace: DeliveryTrace, _ verdict: DeliveryVerdict) throws -> Data {
        var trace = trace
        trace.verdict = verdict
        return try encoder.encode(trace)
    }

    static func json(_ verdict: DeliveryVerdict) throws -> Data {
        try encoder.encode(verdict)
    }

    static func json(_ breakdown: NotificationBreakdown, _ devices: [DeliveryTrace]) throws -> Data {
        struct Answer: Encodable {
            var breakdown: NotificationBreakdown
            var deliveries: [DeliveryTrace]
        }
        return try encoder.encode(Answer(breakdown: breakdown, deliveries: devices))
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
