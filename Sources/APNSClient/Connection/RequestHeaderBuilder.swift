import APNSCore
import NIOHPACK

/// Builds each request's HPACK header list, as Apple advises: `:path` and `apns-id` are never indexed (they change
/// with every request); the method, scheme, authority, `authorization` and the other `apns-*` headers are indexed.
///
/// The part shared by consecutive notifications (same headers, same token) is built once and copied.
struct RequestHeaderBuilder {
    private let authority: String
    /// Whether the server is a local APNs, not Apple's: only then is a rejection's explanation asked for and a
    /// notification's `traceparent` sent.
    private let asksForExplanations: Bool
    private var sharedKey: APNSRequestHeaders?
    private var sharedAuthorization: String?
    private var shared = HPACKHeaders()

    init(authority: String) {
        self.authority = authority
        let host = authority.split(separator: ":").first.map { $0.lowercased() } ?? ""
        asksForExplanations = !(host == "push.apple.com" || host.hasSuffix(".push.apple.com"))
    }

    mutating func headers(for notification: APNSNotification, authorization: String?) -> HPACKHeaders {
        if let request = notification.channelRequest { return headers(for: request, authorization: authorization) }
        let token: String
        var regular: APNSRequestHeaders
        switch notification.target {
        case .broadcast(let broadcast): return headers(for: broadcast, authorization: authorization)
        case .device(let deviceToken, let headers): (token, regular) = (deviceToken, headers)
        }
        let apnsID = regular.apnsID
        regular.apnsID = nil
        if regular != sharedKey || authorization != sharedAuthorization {
            rebuildShared(regular, authorization: authorization)
        }
        var headers = HPACKHeaders()
        headers.reserveCapacity(shared.count + 5)
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":path", value: "/3/device/" + token, indexing: .nonIndexable)
        headers.add(name: ":authority", value: authority)
        headers.add(contentsOf: shared)
        if let apnsID {
            headers.add(name: APNSRequestHeaders.Name.apnsID, value: apnsID.rawValue, indexing: .nonIndexable)
        }
        if asksForExplanations, let traceParent = notification.traceParent {
            // Indexed: a broadcast's requests carry its fan-out's one value, which HPACK then sends as an index
            // instead of Huffman-coding 55 characters per request (5 % of a traced broadcast's time, profiled).
            headers.add(name: "traceparent", value: traceParent, indexing: .indexable)
        }
        return headers
    }

    /// A broadcast's headers: rare enough next to device pushes to be built whole each time.
    private func headers(for broadcast: APNSBroadcast, authorization: String?) -> HPACKHeaders {
        var headers = HPACKHeaders()
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":path", value: APNSBroadcastHeaders.path(bundleID: broadcast.bundleID))
        headers.add(name: ":authority", value: authority)
        if let authorization { headers.add(name: APNSRequestHeaders.Name.authorization, value: authorization) }
        for (name, value) in broadcast.headers.headerFields {
            headers.add(
                name: name, value: value,
                indexing: name == APNSBroadcastHeaders.Name.requestID ? .nonIndexable : .indexable)
        }
        return headers
    }

    /// A channel management request's headers.
    private func headers(for request: ChannelRequest, authorization: String?) -> HPACKHeaders {
        var headers = HPACKHeaders()
        headers.add(name: ":method", value: request.method)
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":path", value: request.path)
        headers.add(name: ":authority", value: authority)
        if let authorization { headers.add(name: APNSRequestHeaders.Name.authorization, value: authorization) }
        for field in request.fields { headers.add(name: field.name, value: field.value, indexing: .nonIndexable) }
        return headers
    }

    private mutating func rebuildShared(_ regular: APNSRequestHeaders, authorization: String?) {
        var shared = HPACKHeaders()
        if let authorization { shared.add(name: APNSRequestHeaders.Name.authorization, value: authorization) }
        for (name, value) in regular.headerFields { shared.add(name: name, value: value) }
        if asksForExplanations { shared.add(name: APNSErrorResponse.explainHeader, value: "1") }
        self.shared = shared
        sharedKey = regular
        sharedAuthorization = authorization
    }
}
