import APNSClient
import APNSCore
import Foundation
import HeraldTime
import ProviderStorage

/// What the engine records for APNs' answer to a delivery: accepted; rejected for good (a token APNs retired is
/// deactivated); waiting, no attempt spent, when the answer is about the app's credentials (``CredentialPause``); or, for what may succeed later (`429`, `500`, `503`, no answer), back to the queue with backoff until
/// ``maximumAttempts`` sends in all (the client sends each lease once, so this is the only count).
struct AnswerPolicy: Sendable {
    /// Sends of one delivery in all (leases, across restarts) before a temporary refusal is taken as final.
    let maximumAttempts: Int
    /// The time results are dated by.
    let clock: any WallClock

    /// The delivery's result from APNs' answer to it.
    func result(of answer: APNSResult, for delivery: LeasedDelivery, appID: String) -> DeliveryResult {
        let now = clock.currentDate
        switch answer {
        case .accepted(let acceptance):
            return .accepted(
                id: delivery.id, notificationID: delivery.notificationID, uniqueID: acceptance.uniqueID, at: now)
        case .rejected(let rejection):
            let reason = rejection.reason.rawValue
            if CredentialPause.reasons.contains(reason) {
                // About the app, not the device: it waits, no attempt spent, while the engine pauses the app.
                return .wait(
                    id: delivery.id, reason: CredentialPause.parkingReason(reason),
                    notBefore: DeliveryEngine.pausedUntil)
            }
            var deactivate: DeliveryResult.Deactivation?
            if rejection.status == 410 || reason == "BadDeviceToken", let token = delivery.address.deviceToken {
                deactivate = .init(appID: appID, token: token, at: rejection.timestamp ?? now, reason: reason)
            } else if rejection.status == nil || [429, 500, 503].contains(rejection.status) {
                return retryOrGiveUp(delivery, reason: reason, status: rejection.status)
            }
            return .rejected(
                id: delivery.id, notificationID: delivery.notificationID, status: rejection.status, reason: reason,
                at: now, deactivate: deactivate)
        }
    }

    /// Back to the queue with exponential backoff (2, 4, 8 ... seconds, at most 5 minutes), or rejected for good
    /// after ``maximumAttempts``.
    func retryOrGiveUp(_ delivery: LeasedDelivery, reason: String, status: Int? = nil) -> DeliveryResult {
        guard delivery.attempts < maximumAttempts else {
            return .rejected(
                id: delivery.id, notificationID: delivery.notificationID, status: status, reason: reason,
                at: clock.currentDate,
                deactivate: nil)
        }
        let delay = min(300, pow(2, Double(delivery.attempts)))
        return .retry(id: delivery.id, reason: reason, notBefore: clock.currentDate.addingTimeInterval(delay))
    }
}
