import APNSCore
import NIOHPACK

/// One request on the provider API as it arrived: pseudo-headers, headers in order, body bytes.
struct ProviderRequest: Sendable {
    var method: String?
    var path: String?
    var authority: String?
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// Whether the body grew past what APNs accepts for any push type (reading stopped there).
    var bodyTooLarge = false
    /// Whether the request was answered (further frames on its stream are ignored).
    var answered = false

    /// The first value of a regular header.
    func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// Takes a header block: pseudo-headers into their fields (`host` stands in for a missing `:authority`), the rest
    /// in order.
    mutating func add(_ block: HPACKHeaders) {
        for (name, value, _) in block {
            switch name {
            case ":method": method = value
            case ":path": path = value
            case ":authority": authority = value
            case "host" where authority == nil: authority = value
            default: if !name.hasPrefix(":") { headers.append((name, value)) }
            }
        }
    }
}

/// What the gateway answers.
struct ProviderResponse: Sendable {
    var status: Int
    var apnsID: String
    var uniqueID: String?
    var error: APNSErrorResponse?
    /// Set by an injected fault: send no answer, end the connection with GOAWAY carrying this reason.
    var goAway: APNSReason?

    static func rejected(_ rejection: APNSRequestRejection, apnsID: String) -> ProviderResponse {
        ProviderResponse(
            status: rejection.status, apnsID: apnsID, uniqueID: nil, error: APNSErrorResponse(reason: rejection.reason))
    }
}
