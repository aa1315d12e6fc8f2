import APNSCore
import Courier
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

    /// The first value of a regular header.
    func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

extension ProviderRequest {
    /// The header list size the gateway advertises (`SETTINGS_MAX_HEADER_LIST_SIZE`) and holds every request to: the
    /// sum over fields of name, value and 32 bytes (RFC 9113 §6.5.2), measured here because a client may send its
    /// first requests before it acknowledged the setting, while NIOHTTP2 still applies its default.
    static let maximumHeaderListSize = 8000

    /// Reads a received stream, checking its header blocks against ``RequestHeaderRules``: pseudo-headers into their
    /// fields (`host` stands in for a missing `:authority`), the rest in order, trailers after them.
    init(_ stream: ReceivedStream) throws(MalformedHeaderBlock) {
        self.init(body: stream.body, bodyTooLarge: stream.bodyTooLarge)
        let size = stream.head.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 32 }
        guard size <= Self.maximumHeaderListSize else {
            throw MalformedHeaderBlock(
                problem: "the header list is \(size) bytes, over the advertised \(Self.maximumHeaderListSize)")
        }
        headers.reserveCapacity(stream.head.count)
        var seen = RequestHeaderRules.PseudoFields()
        var regularFieldSeen = false
        for (name, value, _) in stream.head {
            if name.utf8.first == UInt8(ascii: ":") {
                guard !regularFieldSeen else {
                    throw MalformedHeaderBlock(problem: "\(name) comes after a regular field")
                }
                let field = try RequestHeaderRules.PseudoFields(name: name)
                guard !seen.contains(field) else { throw MalformedHeaderBlock(problem: "\(name) appears twice") }
                seen.insert(field)
                try RequestHeaderRules.checkPseudoValue(name, value)
                switch field {
                case .method: method = value
                case .path: path = value
                case .authority: authority = value
                default: break
                }
            } else {
                regularFieldSeen = true
                try RequestHeaderRules.checkRegular(name, value)
                add(name, value)
            }
        }
        try RequestHeaderRules.checkPseudoFields(seen, method: method, path: path)
        guard let trailers = stream.trailers else { return }
        for (name, value, _) in trailers {
            guard name.utf8.first != UInt8(ascii: ":") else {
                throw MalformedHeaderBlock(problem: "\(name) is a pseudo-header field in trailers")
            }
            try RequestHeaderRules.checkRegular(name, value)
            add(name, value)
        }
    }

    private mutating func add(_ name: String, _ value: String) {
        if name == "host", authority == nil {
            authority = value
        } else {
            headers.append((name, value))
        }
    }
}

/// What the gateway answers.
/// A push an answer stored for an offline device, and the push it replaced. A reference: every answer carries the
/// field through the batch's decisions, and two notifications inline would make each answer several times larger.
final class StoredPush: Sendable {
    let notification: AcceptedNotification
    let replaced: AcceptedNotification?

    init(_ notification: AcceptedNotification, replaced: AcceptedNotification?) {
        self.notification = notification
        self.replaced = replaced
    }
}

struct ProviderResponse: Sendable {
    var status: Int
    var apnsID: String
    var uniqueID: String?
    var error: APNSErrorResponse?
    /// Set by an injected fault: send no answer, end the connection with GOAWAY carrying this reason.
    var goAway: APNSReason?
    /// The header that carries ``apnsID``: `apns-id` for a device push, `apns-request-id` for a broadcast or a
    /// channel request.
    var idHeader = "apns-id"
    /// More headers: a new channel's `apns-channel-id`.
    var extraHeaders: [(String, String)] = []
    /// The body of a success that has one: a channel's configuration, the list of channels.
    var body: [UInt8]?
    /// A push this answer stored for an offline device, and the push it replaced: taken back, and the answer turned
    /// into ``unstored(_:)``, when the journal cannot be written.
    var stored: StoredPush?

    /// The answer to a push that was stored but could not be written to the journal: `503 ServiceUnavailable`, which
    /// a provider retries; the push is not kept.
    static func unstored(_ accepted: ProviderResponse) -> ProviderResponse {
        var response = rejected(
            APNSRequestRejection(.serviceUnavailable, "the gateway could not write its journal"),
            apnsID: accepted.apnsID)
        response.idHeader = accepted.idHeader
        return response
    }

    static func rejected(_ rejection: APNSRequestRejection, apnsID: String) -> ProviderResponse {
        ProviderResponse(
            status: rejection.status, apnsID: apnsID, uniqueID: nil, error: APNSErrorResponse(reason: rejection.reason))
    }
}
