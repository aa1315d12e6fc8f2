/// How many days the provider keeps an app's records, per kind: `deliveries` (a row per device and notification:
/// APNs' answer, the times the device reported), `traces` (the device's receipts, delivered and displayed, with
/// their outcomes) and `responses` (taps, dismissals, actions and replies). Each is 1 to ``maximum``; `nil` takes the
/// provider's default (``standard``). A notification's counts outlive its rows: History and the breakdown still
/// answer after pruning.
package struct RetentionDays: StrictInput, Codable, Sendable, Hashable {
    package var deliveries: Int?
    package var traces: Int?
    package var responses: Int?

    /// Every stored property, as given.
    package init(deliveries: Int? = nil, traces: Int? = nil, responses: Int? = nil) {
        self.deliveries = deliveries
        self.traces = traces
        self.responses = responses
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case deliveries, traces, responses
    }

    package static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }

    /// The provider's defaults: deliveries and responses 30 days, traces 7 (Apple's own console keeps its delivery
    /// log 7 days).
    package static let standard = RetentionDays(deliveries: 30, traces: 7, responses: 30)

    /// The longest retention a field takes: ten years.
    package static let maximum = 3650

    /// Each field of `self`, or of `defaults` where `self` has none.
    package func filled(from defaults: RetentionDays) -> RetentionDays {
        RetentionDays(
            deliveries: deliveries ?? defaults.deliveries, traces: traces ?? defaults.traces,
            responses: responses ?? defaults.responses)
    }

    /// The first field out of range (1 to ``maximum`` days), named with the limit.
    ///
    /// - Throws: ``ProviderError/field(_:_:)`` naming the field, its value and the limits.
    package func check(prefix: String) throws(ProviderError) {
        for (name, value) in [("deliveries", deliveries), ("traces", traces), ("responses", responses)] {
            guard let value else { continue }
            guard (1...Self.maximum).contains(value) else {
                throw .field(
                    "\(prefix).\(name)",
                    "is \(value) days; give 1 to \(Self.maximum) (ten years), or leave it out for the provider's "
                        + "default")
            }
        }
    }
}
