import Foundation
import HTTPTypes
import HeraldSupport
import Hummingbird
import NIOCore
import ProviderStorage
import PushProvider

extension ConsoleRoutes {
    func addPageRoutes(to router: Router<ProviderRequestContext>) {
        let console = self.console
        router.get("console") { _, _ in ConsoleRequest.redirect(to: "/console/compose") }
        router.get("console/login") { request, context -> Response in
            if let code = request.uri.queryParameters.get("code") {
                // A link another site's page opens (or a browser that does not say where it came from) only shows
                // a button: a plain link must not sign the browser into someone else's session (login CSRF).
                guard BrowserOrigin.isOpenedDirectly(request.head) else {
                    return ConsoleRequest.html(console.pages.login(message: Self.confirmCode, code: String(code)))
                }
                return try await self.redeem(
                    code: String(code), from: provider.clientAddress(of: request, context: context))
            }
            let back = request.uri.queryParameters.get("back").flatMap { Self.consolePath(String($0)) }
            if try await self.liveSession(request) != nil {
                return ConsoleRequest.redirect(to: back ?? "/console/compose")
            }
            let expired = request.uri.queryParameters.get("expired") != nil
            return ConsoleRequest.html(
                console.pages.login(
                    message: expired
                        ? "Your console session ended (after 12 hours idle, on sign-out, or when the server restarted). "
                            + "Sign in again; what you were composing is kept in this tab. `herald console-link` "
                            + "prints a new sign-in link." : nil,
                    back: back))
        }
        router.post("console/login") { request, context -> Response in
            guard !BrowserOrigin.isCrossSite(request.head) else {
                return ConsoleRequest.html(
                    console.pages.login(message: "A sign-in sent from another site's page is refused: sign in here."),
                    status: .forbidden)
            }
            let address = provider.clientAddress(of: request, context: context)
            let form = try await ConsoleRequest.form(request)
            if let code = form["code"] { return try await self.redeem(code: code, from: address) }
            let key = form["key"]?.trimmingCharacters(in: .whitespaces) ?? ""
            let back = form["back"].flatMap { Self.consolePath($0) }
            // The admin token is never held back: others' failures from the same address must not lock it out.
            if !provider.isAdminToken(key), let refusal = try await self.signInRefusal(address) { return refusal }
            guard !key.isEmpty else {
                return ConsoleRequest.html(
                    console.pages.login(message: "Enter the admin token or an app's API key (sk_…)."),
                    status: .badRequest)
            }
            return try await self.signIn(key: key, from: address, back: back)
        }
        // A new one-time sign-in link for a running console (`herald console-link`): the caller proves the admin
        // token or an API key as a bearer token, and the link signs in with that key.
        router.post("console/api/login-link") { request, context -> Response in
            let address = provider.clientAddress(of: request, context: context)
            let header = request.headers[.authorization] ?? ""
            let key = header.lowercased().hasPrefix("bearer ") ? String(header.dropFirst(7)) : ""
            if !provider.isAdminToken(key), let refusal = try await self.signInRefusal(address) { return refusal }
            do {
                _ = try await provider.holder(of: key)
            } catch {
                try await console.sessions.recordFailedSignIn(from: address)
                throw error
            }
            let code = try await console.sessions.makeLoginCode(for: key)
            return try ConsoleRequest.json(["path": "/console/login?code=\(code)"])
        }
        router.post("console/logout") { request, _ -> Response in
            guard let session = try await console.storedSession(of: request) else {
                return ConsoleRequest.redirect(
                    to: "/console/login",
                    cookie: ConsoleRequest.cookie(for: nil, secure: provider.configuration.tls != nil))
            }
            let form = try await ConsoleRequest.form(request)
            guard KeyMaker.matches(form["csrf"] ?? "", session.csrfToken) else {
                throw ProviderError.forbidden("the console's CSRF token is missing or wrong: reload the page")
            }
            try await console.sessions.close(id: session.id)
            return ConsoleRequest.redirect(
                to: "/console/login", cookie: ConsoleRequest.cookie(for: nil, secure: provider.configuration.tls != nil)
            )
        }
        router.get("console/assets/:name") { _, context -> Response in
            let name = try context.parameters.decoded("name")
            guard let asset = console.assets.asset(named: name) else {
                throw ProviderError.notFound("the console has no asset \(name)")
            }
            var headers = ConsoleRequest.securityHeaders
            headers[.contentType] = asset.contentType
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.data)))
        }
        router.get("console/:page") { request, context -> Response in
            let name = try context.parameters.decoded("page")
            guard let page = ConsolePages.Page(rawValue: name) else {
                throw ProviderError.notFound("the console has no page \(name); see /console/compose")
            }
            guard let session = try await self.liveSession(request) else {
                return ConsoleRequest.redirect(to: "/console/login")
            }
            let history = page == .history ? try await historyFirstPage(request, session: session) : nil
            let metrics: MetricsView?
            switch (page, session.holder) {
            case (.metrics, .admin): metrics = MetricsCharts.content(console.metricsHistory.all)
            default: metrics = nil
            }
            return ConsoleRequest.html(
                console.pages.render(page, session: session) { view in
                    view.history = history
                    view.metrics = metrics
                })
        }
    }

    /// `path` when it is a console page to go back to after signing in (never another site's address).
    static func consolePath(_ path: String) -> String? {
        guard let page = path.split(separator: "/").last, path == "/console/\(page)",
            ConsolePages.Page(rawValue: String(page)) != nil
        else { return nil }
        return path
    }

    /// What the sign-in page says when a sign-in link was not opened directly.
    static let confirmCode =
        "This sign-in link was opened from another page. Sign in only if you ran `herald up` or `herald console-link` "
        + "yourself and opened its link."

    /// Spends a one-time sign-in code and opens a session for its key, or shows why not.
    func redeem(code: String, from address: String) async throws -> Response {
        if let refusal = try await self.signInRefusal(address) { return refusal }
        guard let key = try await console.sessions.redeem(code: code) else {
            try await console.sessions.recordFailedSignIn(from: address)
            return ConsoleRequest.html(
                console.pages.login(
                    message:
                        "This sign-in link was used already or is older than 15 minutes. Run `herald console-link` for "
                        + "a new one, or sign in with the admin token."
                ), status: .unauthorized)
        }
        return try await self.signIn(key: key, from: address)
    }

    /// Opens a session for `key`, or shows the sign-in page with why not (a failure counted for `address`).
    func signIn(key: String, from address: String, back: String? = nil) async throws -> Response {
        let holder: PushProviderService.KeyHolder
        do {
            holder = try await provider.holder(of: key)
        } catch {
            guard error.code == .unauthorized else { throw error }
            try await console.sessions.recordFailedSignIn(from: address)
            return ConsoleRequest.html(console.pages.login(message: error.message, back: back), status: .unauthorized)
        }
        guard let session = try await console.sessions.open(key: key, holder: holder, from: address) else {
            var response = ConsoleRequest.html(
                console.pages.login(
                    message: "Your address has \(ConsoleSessions.sessionsPerAddress) console sessions open, or the "
                        + "console is full: sign out of one (or wait for one to lapse after 12 hours idle) and try "
                        + "again.", back: back), status: .tooManyRequests)
            response.headers[.retryAfter] = "60"
            return response
        }
        return ConsoleRequest.redirect(
            to: back ?? "/console/compose",
            cookie: ConsoleRequest.cookie(for: session.id, secure: provider.configuration.tls != nil))
    }

    /// The sign-in page with 429 and `Retry-After` while too many sign-ins failed in the last minute; `nil` otherwise.
    func signInRefusal(_ address: String) async throws(ProviderError) -> Response? {
        guard let wait = try await console.sessions.signInWait(from: address) else { return nil }
        let seconds = max(1, Int(wait.rounded(.up)))
        var response = ConsoleRequest.html(
            console.pages.login(
                message:
                    "More than \(ConsoleSessions.failedSignInsPerMinute) sign-ins from your address failed in the last minute; try again in \(seconds) s, or sign in with the admin token."
            ), status: .tooManyRequests)
        response.headers[.retryAfter] = String(seconds)
        return response
    }
}
