import HTTPTypes
import Hummingbird

/// Counts every request the provider answers (the API, `/healthz`, the console's pages) by its route template,
/// method and status, and times it to its answer's head (a stream, such as the console's live feed, is timed to its
/// start). The outermost middleware: it sees the status other middleware chose.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ProviderMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.requestAnswered(
                route: context.endpointPath, method: request.method, status: response.status.code,
                duration: .now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.requestAnswered(
                route: context.endpointPath, method: request.method, status: status, duration: .now - start)
            throw error
        }
    }
}
