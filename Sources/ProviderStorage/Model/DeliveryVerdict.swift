import Foundation

/// What became of one notification on one device, in one sentence with the next step: computed from what the
/// provider recorded (its queue and APNs' answer), what the device reported, and, when the far side is the local
/// APNs, its delivery log (``GatewayLogEntry``).
package struct DeliveryVerdict: Codable, Sendable, Hashable {
    /// The verdict's kind; ``Kind`` lists them.
    package var verdict: String
    /// What happened, for a person.
    package var sentence: String
    /// What to do about it, when anything.
    package var next: String?
    /// `false` while it cannot be decided yet; ``waitingFor`` says what it waits for.
    package var decided: Bool
    package var waitingFor: String?

    /// The kinds of verdict, in the order a breakdown lists them.
    package enum Kind: String, Sendable, CaseIterable {
        case replied, acted, opened, dismissed
        case shown, shownBestAttempt, shownOriginal, shownWithoutAttachment
        case activityUpdated, activityIgnored, activityThrottled
        case background, notShown, delivered
        case storedOffline, replaced, coalesced, expired, discarded, awaitingDevice
        case rejected, tokenGone, gaveUp, quietHours, capped, cancelled
        case scheduled, retrying, waitingForAPNs, waitingForCredentials, paused, queued, sending
    }

    package init(_ kind: Kind, _ sentence: String, next: String? = nil, waitingFor: String? = nil) {
        verdict = kind.rawValue
        self.sentence = sentence
        self.next = next
        decided = waitingFor == nil
        self.waitingFor = waitingFor
    }
}
