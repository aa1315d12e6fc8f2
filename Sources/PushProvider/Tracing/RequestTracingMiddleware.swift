import HTTPTypes
import HeraldSupport
import Hummingbird
import Tracing

/// A server span for each API request (`/v1/...`), named by its method and route template (`POST /v1/notifications`), that
/// continues the trace of a caller's W3C `traceparent` (and `tracestate`); the request is handled with the span's
/// context as the task's current one, so what it creates (a notification) carries it on.
struct RequestTracingMiddleware<Context: RequestContext>: RouterMiddleware {
    let tracer: HeraldTracer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // The API only: the console's pages, /healthz and /metrics are not part of a push's trace.
        guard request.uri.path.hasPrefix("/v1/") else { return try await next(request, context) }
        var headers: [String: String] = [:]
        for name in ["traceparent", "tracestate"] {
            if let field = HTTPField.Name(name), let value = request.headers[field] { headers[name] = value }
        }
        let span = tracer.startSpan(
            "\(request.method.rawValue) \(request.uri.path)", parent: tracer.context(headers: headers), kind: .server)
        span.attributes["http.request.method"] = request.method.rawValue
        span.attributes["url.path"] = request.uri.path
        do {
            let response = try await InstrumentationContext.$current.withValue(span.context) {
                try await next(request, context)
            }
            finish(span, route: context.endpointPath, method: request.method, status: response.status.code)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            finish(span, route: context.endpointPath, method: request.method, status: status)
            throw error
        }
    }

    /// Names the span by its route template, says its status, and ends it.
    private func finish(_ span: any Span, route: String?, method: HTTPRequest.Method, status: Int) {
        if let route {
            span.operationName = "\(method.rawValue) \(route)"
            span.attributes["http.route"] = route
        }
        span.attributes["http.response.status_code"] = status
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        span.end()
    }
}
