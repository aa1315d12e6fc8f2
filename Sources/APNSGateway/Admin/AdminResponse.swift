import APNSCore

/// An admin API answer: a status and a JSON body (none for 204).
package struct AdminResponse: Sendable {
    package var status: Int
    package var body: [UInt8]?
    /// The body's type: JSON but for `/admin/metrics`.
    package var contentType = "application/json"

    static func json(_ status: Int, _ value: JSONValue) -> AdminResponse {
        AdminResponse(status: status, body: Array(value.encoded()))
    }

    /// `{"error": "<what was wrong and how to fix it>"}`.
    static func error(_ status: Int, _ message: String) -> AdminResponse {
        json(status, ["error": .string(message)])
    }
}

/// An admin request that cannot be carried out: its status and why.
struct AdminError: Error {
    let status: Int
    let message: String

    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
