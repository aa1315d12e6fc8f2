import APNSClient
import APNSCore

/// What APNs answered to one chunk, counted as its answers arrive: how many it answered (and how many of those with
/// 500 or 503), and which could not be written because no connection could be made.
struct ChunkTally: Sendable {
    /// Answers with an HTTP status (accepted or refused).
    var answered = 0
    /// Answers of 500 (`InternalServerError`) or 503 (`ServiceUnavailable`).
    var troubled = 0
    /// The chunk positions never written: no connection could be made.
    var unreached: [Int] = []
    /// Why the last of ``unreached`` could not be written.
    var reason = ""
    /// The first answer about the app's credentials or topic (``CredentialPause/reasons``): the app pauses.
    var credentialRefusal: String?

    /// Counts `result`, the answer for the delivery at `position`; `true` when it is recorded as the delivery's
    /// result, `false` when it is not (cancelled by the client as the provider stops, or never written).
    mutating func count(_ result: APNSResult, at position: Int) -> Bool {
        switch result {
        case .accepted:
            answered += 1
            return true
        case .rejected(let rejection) where rejection.reason == .cancelled:
            return false
        case .rejected(let rejection) where rejection.reason == .connectionFailed:
            unreached.append(position)
            reason = rejection.message
            return false
        case .rejected(let rejection):
            if let status = rejection.status {
                answered += 1
                troubled += status == 500 || status == 503 ? 1 : 0
            }
            if credentialRefusal == nil, CredentialPause.reasons.contains(rejection.reason.rawValue) {
                credentialRefusal = rejection.reason.rawValue
            }
            return true
        }
    }
}
