import APNSCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A ``ProviderError`` as the API answers it; ``ProviderErrorMiddleware`` wraps every one thrown by a route.
struct APIError: HTTPResponseError {
    let error: ProviderError

    /// The status the API answers with.
    var status: HTTPResponse.Status {
        switch error {
        case .invalid: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .tooLarge: .contentTooLarge
        case .configuration: .internalServerError
        // The database failed or did not answer in time: the same request may succeed in a moment.
        case .storage: .serviceUnavailable
        case .upstream: .badGateway
        }
    }

    /// The seconds a client is asked to wait (`Retry-After`) after a `503` for a database that failed.
    static let storageRetryAfter = 2

    /// `{"error": {"status": 400, "code": "invalid", "field": "target.token", "message": "..."}}`.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        var members: [(key: String, value: JSONValue)] = [("code", .string(code))]
        if case .invalid(let field?, _) = error { members.append(("field", .string(field))) }
        if case .tooLarge(let field, _) = error { members.append(("field", .string(field))) }
        members += [("message", .string(message)), ("status", .number(JSONNumber(Int(status.code))))]
        let data = JSONValue.object(JSONObject([("error", .object(JSONObject(members)))])).encoded()
        var headers: HTTPFields = [.contentType: "application/json"]
        if case .unauthorized = error { headers[.wwwAuthenticate] = "Bearer" }
        if case .storage = error { headers[.retryAfter] = String(Self.storageRetryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private var code: String {
        switch error {
        case .invalid: "invalid"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .notFound: "not_found"
        case .conflict: "conflict"
        case .tooLarge: "too_large"
        case .configuration: "configuration"
        case .storage: "storage"
        case .upstream: "upstream"
        }
    }

    /// What the caller is told. The cause of a failure inside the provider (a database's error text, a path, a
    /// setting) is for its operator: it is logged (``ProviderErrorMiddleware``), never sent.
    private var message: String {
        switch error {
        case .invalid(_, let message), .unauthorized(let message), .forbidden(let message), .notFound(let message),
            .conflict(let message), .upstream(let message), .tooLarge(_, let message):
            message
        case .storage:
            "the provider's database failed or did not answer; try again in \(Self.storageRetryAfter) seconds"
                + " (Retry-After); the provider's log says what failed"
        case .configuration:
            "the provider is misconfigured; its log says what failed"
        }
    }

    /// Whether the error is the provider's own failure, whose cause only its log gets.
    var isInternal: Bool {
        switch error {
        case .storage, .configuration: true
        default: false
        }
    }
}

/// Turns a ``ProviderError`` thrown by a route into its JSON answer.
/// A refusal for the caller's credentials (401, 403) is also handed to `refused`, which logs and counts it; the
/// provider's own failure (its database, its configuration) to `failed`, which logs the cause the answer leaves out.
struct ProviderErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let refused: @Sendable (ProviderError, Request) -> Void
    let failed: @Sendable (ProviderError, Request) -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as ProviderError {
            let answer = APIError(error: error)
            switch error {
            case .unauthorized, .forbidden: refused(error, request)
            default: if answer.isInternal { failed(error, request) }
            }
            throw answer
        }
    }
}
