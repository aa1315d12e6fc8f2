import APNSClient
import APNSCore
import Foundation
import HeraldTime
import Testing

@testable import ProviderStorage
@testable import PushProvider

@Suite("What the engine records for each answer of APNs")
struct AnswerPolicyTests {
    let now = Date(timeIntervalSince1970: 2_000_000_000)
    var policy: AnswerPolicy { AnswerPolicy(maximumAttempts: 4, clock: ManualClock(start: now)) }

    func delivery(attempts: Int) -> LeasedDelivery {
        LeasedDelivery(id: 7, notificationID: "n-1", appID: "app", address: .device(token: "ab"), attempts: attempts)
    }

    func rejected(_ status: Int?, _ reason: String, timestamp: Date? = nil) -> APNSResult {
        .rejected(
            APNSRejection(status: status, reason: APNSReason(rawValue: reason), timestamp: timestamp, message: ""))
    }

    @Test("200 is accepted with APNs' unique id, under the delivery's notification")
    func accepted() {
        let result = policy.result(
            of: .accepted(APNSAcceptance(apnsID: "x", uniqueID: "u")), for: delivery(attempts: 1), appID: "app")
        guard case .accepted(7, "n-1", "u", now) = result else {
            Issue.record("\(result)")
            return
        }
    }

    @Test(
        "a temporary refusal waits 2, 4, 8 seconds after the 1st, 2nd, 3rd send and is final at the 4th",
        arguments: [
            (429, "TooManyRequests"), (500, "InternalServerError"), (503, "ServiceUnavailable"),
            (nil, "DeadlineExceeded"),
        ]
            as [(Int?, String)])
    func temporary(status: Int?, reason: String) {
        for attempts in 1...3 {
            let result = policy.result(of: rejected(status, reason), for: delivery(attempts: attempts), appID: "app")
            guard case .retry(7, reason, let notBefore) = result else {
                Issue.record("attempt \(attempts): \(result)")
                continue
            }
            #expect(notBefore == now.addingTimeInterval(pow(2, Double(attempts))))
        }
        let last = policy.result(of: rejected(status, reason), for: delivery(attempts: 4), appID: "app")
        guard case .rejected(7, "n-1", status, reason, now, nil) = last else {
            Issue.record("\(last)")
            return
        }
    }

    @Test("410 and BadDeviceToken are final and retire the token, 410 as of APNs' timestamp; other refusals are final")
    func final() {
        let since = now.addingTimeInterval(-3600)
        let gone = policy.result(
            of: rejected(410, "Unregistered", timestamp: since), for: delivery(attempts: 1), appID: "app")
        guard case .rejected(7, "n-1", 410, "Unregistered", now, let deactivate?) = gone else {
            Issue.record("\(gone)")
            return
        }
        #expect(deactivate.appID == "app" && deactivate.token == "ab" && deactivate.at == since)
        let bad = policy.result(of: rejected(400, "BadDeviceToken"), for: delivery(attempts: 1), appID: "app")
        guard case .rejected(_, _, 400, "BadDeviceToken", _, let retire?) = bad else {
            Issue.record("\(bad)")
            return
        }
        #expect(retire.at == now)
        let topic = policy.result(of: rejected(400, "BadTopic"), for: delivery(attempts: 1), appID: "app")
        guard case .rejected(_, _, 400, "BadTopic", _, nil) = topic else {
            Issue.record("\(topic)")
            return
        }
    }
}
