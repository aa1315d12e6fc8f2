import Foundation
import ProviderStorage

/// The frequency caps one batch keeps (``FrequencyCap``): what each capped notification's users and devices got in
/// its caps' windows, read once for the batch; which deliveries would go over a cap; and the log of what the batch
/// sends, written before it is sent, so the next batch counts it.
struct FrequencyCapGate {
    /// A notification's caps (its app's caps of its category), and whether they hold it back: an alert that is
    /// `time-sensitive` or `critical` is only counted.
    struct Rule {
        var category: String
        var caps: [FrequencyCap]
        var enforced: Bool
    }

    /// The rules by notification ID.
    private let rules: [String: Rule]
    /// The categories of more than one of the batch's notifications: only there can the batch itself add to a count.
    private let shared: Set<String>
    /// What the log holds, by notification ID, then the index of the cap, then subject: the notifications of the
    /// category the subject got in that cap's window.
    private var logged: [String: [[String: Set<String>]]] = [:]
    /// What this batch sends of a shared category, by category, then subject: the notifications.
    private var sending: [String: [String: Set<String>]] = [:]
    /// What the batch writes to the log: the subjects of each notification.
    private var toLog: [String: Set<String>] = [:]

    init(rules: [String: Rule]) {
        self.rules = rules
        var seen = Set<String>()
        var shared = Set<String>()
        for rule in rules.values where !seen.insert(rule.category).inserted { shared.insert(rule.category) }
        self.shared = shared
    }

    /// Reads the log for the subjects of `deliveries` (their users from `settings`).
    mutating func load(
        _ deliveries: [LeasedDelivery], settings: [String: DeviceSettings], appID: String, store: any DeliveryQueue,
        now: Date
    ) async throws(ProviderError) {
        for (notificationID, rule) in rules where rule.enforced {
            let tokens = deliveries.filter { $0.notificationID == notificationID }.compactMap(\.address.deviceToken)
            var perCap: [[String: Set<String>]] = []
            for cap in rule.caps {
                let subjects = Set(tokens.map { cap.subject(token: $0, userID: settings[$0]?.userID) })
                perCap.append(
                    try await store.capSends(
                        appID: appID, category: rule.category, subjects: Array(subjects),
                        since: now.addingTimeInterval(-TimeInterval(cap.window))))
            }
            logged[notificationID] = perCap
        }
    }

    /// Whether notification `notificationID` may go to the device `token` (of user `userID`): `false` when one of its
    /// caps has the limit of other notifications of the category already; else it counts as sent.
    mutating func admits(_ notificationID: String, token: String, userID: String?) -> Bool {
        guard let rule = rules[notificationID] else { return true }
        let isShared = shared.contains(rule.category)
        if rule.enforced, let perCap = logged[notificationID] {
            for (index, cap) in rule.caps.enumerated() {
                let subject = cap.subject(token: token, userID: userID)
                let before = perCap[index][subject]
                var others = before?.count ?? 0
                if before?.contains(notificationID) == true { others -= 1 }
                if isShared, let batch = sending[rule.category]?[subject] {
                    others += batch.filter { $0 != notificationID && before?.contains($0) != true }.count
                }
                if others >= cap.limit { return false }
            }
        }
        for cap in rule.caps {
            let subject = cap.subject(token: token, userID: userID)
            toLog[notificationID, default: []].insert(subject)
            if isShared { sending[rule.category, default: [:]][subject, default: []].insert(notificationID) }
        }
        return true
    }

    /// Writes what the batch sends to the log.
    func record(appID: String, store: any DeliveryQueue, now: Date) async throws(ProviderError) {
        for (notificationID, subjects) in toLog {
            guard let rule = rules[notificationID] else { continue }
            try await store.recordCapSends(
                appID: appID, category: rule.category, notificationID: notificationID, subjects: Array(subjects),
                at: now)
        }
    }
}
