import APNSCore
import NIOHPACK

/// Builds each request's HPACK header list, as Apple advises: `:path` and `apns-id` are never indexed (they change
/// with every request); the method, scheme, authority, `authorization` and the other `apns-*` headers are indexed.
///
/// The part shared by consecutive notifications (same headers, same token) is built once and copied.
struct RequestHeaderBuilder {
    private let authority: String
    private var sharedKey: APNSRequestHeaders?
    private var sharedAuthorization: String?
    private var shared = HPACKHeaders()

    init(authority: String) {
        self.authority = authority
    }

    mutating func headers(for notification: APNSNotification, authorization: String?) -> HPACKHeaders {
        var regular = notification.headers
        let apnsID = regular.apnsID
        regular.apnsID = nil
        if regular != sharedKey || authorization != sharedAuthorization {
            rebuildShared(regular, authorization: authorization)
        }
        var headers = HPACKHeaders()
        headers.reserveCapacity(shared.count + 5)
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":path", value: "/3/device/" + notification.deviceToken, indexing: .nonIndexable)
        headers.add(name: ":authority", value: authority)
        headers.add(contentsOf: shared)
        if let apnsID {
            headers.add(name: APNSRequestHeaders.Name.apnsID, value: apnsID.rawValue, indexing: .nonIndexable)
        }
        return headers
    }

    private mutating func rebuildShared(_ regular: APNSRequestHeaders, authorization: String?) {
        var shared = HPACKHeaders()
        if let authorization { shared.add(name: APNSRequestHeaders.Name.authorization, value: authorization) }
        for (name, value) in regular.headerFields { shared.add(name: name, value: value) }
        self.shared = shared
        sharedKey = regular
        sharedAuthorization = authorization
    }
}
