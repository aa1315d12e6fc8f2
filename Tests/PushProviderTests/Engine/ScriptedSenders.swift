import APNSClient
import APNSCore
import Foundation
import ProviderStorage
import Synchronization

@testable import PushProvider

/// Senders that answer as a test says, per app, and remember what they were handed: what the engine's tests send
/// with instead of a connection to APNs.
final class ScriptedSenders: DeliverySenders {
    /// One notification a sender was handed.
    struct Sent: Equatable {
        var appID: String
        var token: String
        var apnsID: String?
    }

    /// What APNs answers to a notification of an app (by device token).
    typealias Answer = @Sendable (_ appID: String, _ token: String) -> APNSResult

    private struct State {
        var answer: Answer
        var sent: [Sent] = []
        /// The sizes of the sends, in order.
        var sends: [Int] = []
        var signingFails = false
    }

    private let state: Mutex<State>

    /// Senders that accept everything until told otherwise.
    init() {
        state = Mutex(State(answer: { _, _ in .accepted(APNSAcceptance(apnsID: UUID().uuidString)) }))
    }

    /// From now on APNs answers with `answer`.
    func answer(_ answer: @escaping Answer) {
        state.withLock { $0.answer = answer }
    }

    /// From now on no provider token can be signed (`true`), or again can.
    func failSigning(_ fails: Bool) {
        state.withLock { $0.signingFails = fails }
    }

    /// Everything sent so far, in order.
    var sent: [Sent] { state.withLock { $0.sent } }

    /// How many notifications each send call carried, in order.
    var sends: [Int] { state.withLock { $0.sends } }

    func sender(for app: StoredApp) -> any DeliverySender {
        Sender(appID: app.app.id, owner: self)
    }

    private struct Sender: DeliverySender {
        let appID: String
        let owner: ScriptedSenders

        func send(
            contentsOf notifications: some Sequence<APNSNotification>,
            onResult: @escaping @Sendable (APNSSendOutcome) -> Void
        ) async throws(APNSClientError) {
            let notifications = Array(notifications)
            let (answer, signingFails) = owner.state.withLock { state in
                state.sends.append(notifications.count)
                return (state.answer, state.signingFails)
            }
            if signingFails { throw APNSClientError("cannot sign a provider token (a test's failure)") }
            for (index, notification) in notifications.enumerated() {
                let result = answer(appID, notification.deviceToken ?? "")
                if case .rejected(let rejection) = result, rejection.reason == .connectionFailed {
                } else {
                    owner.state.withLock {
                        $0.sent.append(
                            Sent(
                                appID: appID, token: notification.deviceToken ?? "",
                                apnsID: notification.requestID?.rawValue))
                    }
                }
                onResult(APNSSendOutcome(notification: notification, result: result, attempts: 1, index: index))
            }
        }
    }
}

extension APNSResult {
    /// APNs' refusal with `status` and `reason`; `status` `nil` with ``APNSReason/connectionFailed`` is a connection
    /// that could not be made (nothing was written).
    static func refused(_ status: Int?, _ reason: APNSReason) -> APNSResult {
        .rejected(APNSRejection(status: status, reason: reason, message: reason.rawValue))
    }
}
