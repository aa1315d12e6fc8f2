import APNSCore

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

/// What the gateway answers.
struct ProviderResponse: Sendable {
    var status: Int
    var apnsID: String
    var uniqueID: String?
    var error: APNSErrorResponse?

    static func rejected(_ rejection: APNSRequestRejection, apnsID: String) -> ProviderResponse {
        ProviderResponse(
            status: rejection.status, apnsID: apnsID, uniqueID: nil, error: APNSErrorResponse(reason: rejection.reason))
    }
}
