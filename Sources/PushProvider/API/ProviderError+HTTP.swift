import APNSCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ProviderStorage

/// A ``ProviderError`` as the API answers it; ``ProviderErrorMiddleware`` wraps every one thrown by a route.
struct APIError: HTTPResponseError {
    let error: ProviderError

    /// The status the API answers with.
    var status: HTTPResponse.Status {
        switch error.code {
        case .invalid: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .gone: .gone
        case .tooLarge: .contentTooLarge
        case .tooManyRequests: .tooManyRequests
        case .configuration: .internalServerError
        // The database failed or did not answer in time: the same request may succeed in a moment.
        case .storage: .serviceUnavailable
        case .upstream: .badGateway
        }
    }

    /// `{"error": {"status": 400, "code": "invalid", "field": "target.token", "message": "..."}}`: the message the
    /// caller is told, never the cause (``ProviderError/cause``), which ``ProviderErrorMiddleware`` logs.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        var members: [(key: String, value: JSONValue)] = [("code", .string(error.code.rawValue))]
        if let field = error.field { members.append(("field", .string(field))) }
        members += [("message", .string(error.message)), ("status", .number(JSONNumber(Int(status.code))))]
        let data = JSONValue.object(JSONObject([("error", .object(JSONObject(members)))])).encoded()
        var headers: HTTPFields = [.contentType: "application/json"]
        if error.code == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if error.code == .storage { headers[.retryAfter] = String(ProviderError.storageRetryAfter) }
        if let seconds = error.retryAfter { headers[.retryAfter] = String(seconds) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
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
            switch error.code {
            case .unauthorized, .forbidden: refused(error, request)
            default: if error.cause != nil { failed(error, request) }
            }
            throw APIError(error: error)
        } catch let error as HTTPError where error.status == .notFound {
            // No route matched: answered in JSON like every other error, naming what was asked.
            throw APIError(
                error: .notFound(
                    "no route \(request.method) \(request.uri.path); docs/api.md and docs/openapi.json in Herald's "
                        + "repository list the routes"))
        }
    }
}
