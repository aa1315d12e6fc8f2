import APNSCore
import Foundation
import HTTPTypes
import HeraldTime
import Hummingbird
import Logging
import ProviderStorage

/// Records in the audit log (``AuditLog``) every `/v1` change made with a secret: a request other than `GET` or
/// `HEAD` by the admin token or an API key (or a console session signed in with one) that was answered below 400.
/// What a publishable key does is not recorded (it has its own metrics); a refused request changed nothing.
struct AuditMiddleware: RouterMiddleware {
    let provider: PushProviderService

    func handle(
        _ request: Request, context: ProviderRequestContext,
        next: (Request, ProviderRequestContext) async throws -> Response
    ) async throws -> Response {
        guard ![.get, .head].contains(request.method), Self.audited(context.caller) else {
            return try await next(request, context)
        }
        // The body's fields are named in the entry: a body short enough is read here and handed on as read.
        var request = request
        var fields: [String]?
        if let length = request.headers[.contentLength].flatMap(Int.init), length <= Self.fieldsReadLimit {
            let buffer = try await request.body.collect(upTo: Self.fieldsReadLimit)
            request.body = RequestBody(buffer: buffer)
            if case .object(let object)? = try? JSONValue(parsing: Data(buffer.readableBytesView)) {
                fields = object.members.map(\.key)
            }
        }
        let response = try await next(request, context)
        guard response.status.code < 400, var entry = entry(request, context, status: response.status.code) else {
            return response
        }
        entry.fields = fields
        do {
            try await provider.store.recordAudit(entry)
        } catch {
            provider.failures.report(
                .audit, "a change could not be written to the audit log", error: error,
                metadata: ["route": "\(entry.route)"])
        }
        return response
    }

    /// The longest body whose fields an entry names.
    static let fieldsReadLimit = 64 * 1024

    /// Whether `caller` holds a secret (the admin token or an API key): what a publishable key does is not audited.
    private static func audited(_ caller: Caller?) -> Bool {
        switch caller {
        case .admin?, .server?: true
        case .device?, nil: false
        }
    }

    /// The entry of a change `request` made, or `nil` for a caller not audited.
    private func entry(_ request: Request, _ context: ProviderRequestContext, status: Int) -> AuditEntry? {
        let actor: String
        let keyID: String?
        var appID: String?
        switch context.caller {
        case .admin?: (actor, keyID) = ("admin", nil)
        case .server(let app, let key)?: (actor, keyID, appID) = ("apiKey", key.id, app.app.id)
        case .device?, nil: return nil
        }
        let route = context.endpointPath ?? request.uri.path
        let segments = route.split(separator: "/").map(String.init)
        // /v1/apps/{appID}/... names its app; an admin's call may also name it with ?app=.
        if appID == nil {
            appID =
                segments.count >= 3 && segments[1] == "apps"
                ? context.parameters.get("appID") : request.uri.queryParameters.get("app").map { String($0) }
        }
        return AuditEntry(
            at: provider.configuration.clock.currentDate, actor: actor, keyID: keyID,
            console: Caller.presentedKey(request) == nil, appID: appID, kind: Self.kind(of: segments),
            method: request.method.rawValue, route: "\(request.method.rawValue) \(route)",
            path: String(request.uri.path.prefix(300)), status: status,
            address: provider.clientAddress(of: request, context: context))
    }

    /// The kind of change a route makes: its resource (`notifications`, `devices`, ...), or for an app's own routes
    /// the part after the app (`keys`, `webhook-secret`, `pause`, ...), `apps` for the app itself.
    static func kind(of segments: [String]) -> String {
        let parts = Array(segments.drop { $0 == "v1" })
        guard let resource = parts.first else { return "other" }
        if resource == "apps", parts.count >= 3 { return parts[2] }
        return resource
    }
}
