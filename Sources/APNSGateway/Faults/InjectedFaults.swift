package import APNSCore
import NIOConcurrencyHelpers

/// Failures a test asks the gateway to produce, so a provider's handling of them can be tested: the next matching
/// pushes are answered with a chosen status and reason (`429 TooManyRequests`, `500`, `503 ServiceUnavailable`, ...),
/// or end their connection with a GOAWAY, instead of being accepted. Set through `POST /admin/faults`.
package final class InjectedFaults: Sendable {
    /// What happens to a push a fault matches.
    package enum Effect: Hashable, Sendable {
        /// Answer with this status and reason.
        case answer(status: Int, reason: APNSReason)
        /// Leave the push unprocessed and end the connection with GOAWAY carrying `{"reason": ...}`.
        case goAway(reason: APNSReason)
    }

    /// One armed fault.
    package struct Fault: Hashable, Sendable {
        package var effect: Effect
        /// How many more pushes it applies to.
        package var remaining: Int
        /// Only pushes to this token, or any push when `nil`.
        package var token: APNSDeviceToken?
        /// Only broadcasts on this channel; a fault with neither a token nor a channel applies to any push and any
        /// broadcast.
        package var channel: APNSChannelID?

        package init(effect: Effect, count: Int, token: APNSDeviceToken? = nil, channel: APNSChannelID? = nil) {
            self.effect = effect
            self.remaining = count
            self.token = token
            self.channel = channel
        }
    }

    private let faults = NIOLockedValueBox<[Fault]>([])

    package init() {}

    /// Arms a fault; faults apply in the order they were added.
    package func add(_ fault: Fault) {
        faults.withLockedValue { $0.append(fault) }
    }

    /// Disarms every fault.
    package func removeAll() {
        faults.withLockedValue { $0.removeAll() }
    }

    /// How many pushes the armed faults will still change (at most `Int.max`: two faults of 2^62 pushes each are
    /// "for ever", not an overflow).
    package var pending: Int {
        faults.withLockedValue { faults in
            faults.reduce(0) { total, fault in
                let (sum, overflow) = total.addingReportingOverflow(fault.remaining)
                return overflow ? Int.max : sum
            }
        }
    }

    /// The effect for a valid push to `token`, using up one application of the first matching fault.
    func take(for token: APNSDeviceToken) -> Effect? {
        take { $0.channel == nil && ($0.token == nil || $0.token == token) }
    }

    /// The effect for a valid broadcast on `channel`, using up one application of the first matching fault.
    func take(forChannel channel: APNSChannelID) -> Effect? {
        take { $0.token == nil && ($0.channel == nil || $0.channel == channel) }
    }

    private func take(where matches: (Fault) -> Bool) -> Effect? {
        faults.withLockedValue { faults in
            guard let index = faults.firstIndex(where: matches) else { return nil }
            let effect = faults[index].effect
            faults[index].remaining -= 1
            if faults[index].remaining <= 0 { faults.remove(at: index) }
            return effect
        }
    }
}
