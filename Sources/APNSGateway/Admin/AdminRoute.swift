import APNSCore
import NIOCore

/// One admin endpoint: a method, a path pattern under `/admin` (`*` takes any one segment and hands it to the
/// handler), and what answers it. ``AdminRequestProcessor/routes`` lists them all.
struct AdminRoute: Sendable {
    /// What a handler gets besides the processor: the body, the query, the peer, and the segments `*` matched.
    struct Request {
        var body: [UInt8]
        var query: AdminQuery
        var source: SocketAddress?
        var parameters: [String]

        /// The request's JSON body.
        func json() throws(AdminError) -> AdminRequestBody { try AdminRequestBody(body) }
    }

    typealias Handler = @Sendable (AdminRequestProcessor, Request) throws(AdminError) -> AdminResponse

    let method: String
    let pattern: [String]
    let handle: Handler

    init(_ method: String, _ pattern: String, _ handle: @escaping Handler) {
        self.method = method
        self.pattern = pattern.split(separator: "/").map(String.init)
        self.handle = handle
    }

    /// The segments `*` matched in `segments` (the path after `/admin`), or `nil` when the path is not this one.
    func parameters(of segments: [String]) -> [String]? {
        guard segments.count == pattern.count else { return nil }
        var parameters: [String] = []
        for (expected, segment) in zip(pattern, segments) {
            if expected == "*" {
                parameters.append(segment)
            } else if expected != segment {
                return nil
            }
        }
        return parameters
    }
}

extension AdminRequestProcessor {
    /// Every admin endpoint; docs/gateway.md describes them.
    static let routes: [AdminRoute] = [
        AdminRoute("GET", "status") { admin, _ in admin.status() },
        AdminRoute("POST", "devices") { admin, request throws(AdminError) in
            try admin.register(request.json(), source: request.source)
        },
        AdminRoute("DELETE", "devices/*") { admin, request throws(AdminError) in
            try admin.invalidate(request.parameters[0], reason: .unregistered)
        },
        AdminRoute("POST", "devices/*/expire") { admin, request throws(AdminError) in
            try admin.invalidate(request.parameters[0], reason: .expiredToken)
        },
        AdminRoute("GET", "devices/*/notifications") { admin, request throws(AdminError) in
            try admin.notifications(request.parameters[0])
        },
        AdminRoute("GET", "deliveries") { admin, request throws(AdminError) in try admin.deliveries(request.query) },
        AdminRoute("POST", "keys") { admin, request throws(AdminError) in try admin.addKey(request.json()) },
        AdminRoute("POST", "faults") { admin, request throws(AdminError) in try admin.addFault(request.json()) },
        AdminRoute("DELETE", "faults") { admin, _ in admin.removeFaults() },
        AdminRoute("POST", "certificates") { admin, request throws(AdminError) in
            try admin.issueCertificate(request.json())
        },
        AdminRoute("POST", "apps/*/broadcast") { admin, request throws(AdminError) in
            try admin.switchBroadcast(request.parameters[0], request.json())
        },
        AdminRoute("GET", "channels") { admin, request throws(AdminError) in try admin.listChannels(request.query) },
        AdminRoute("GET", "broadcasts") { admin, request throws(AdminError) in
            try admin.listBroadcasts(request.query)
        },
        AdminRoute("GET", "refusals") { admin, _ in admin.listRefusals() },
        AdminRoute("GET", "metrics") { admin, _ in admin.metrics() },
    ]
}
