import HTTPTypes
import HeraldSupport
import Hummingbird

/// The device API has no credentials: it trusts whoever can reach its port (loopback by default). A web page open in
/// the developer's browser can reach that port too, so this middleware refuses what only a browser on another site's
/// page sends:
/// - a `Host` that is a name other than `localhost` (DNS rebinding: a site's own name made to resolve to 127.0.0.1);
/// - a request ``BrowserOrigin`` says came from another site's page (`Sec-Fetch-Site`, else `Origin`);
/// - a body a page can send without asking first (`text/plain`, `multipart/form-data`): bodies are JSON.
///
/// Scripts (`curl`, Python, the console's server-side client) send none of these and are not affected.
struct LocalCallerMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if let refusal = Self.refusal(of: request) { throw refusal }
        return try await next(request, context)
    }

    /// Why `request` is refused, or `nil` when it may go on.
    static func refusal(of request: Request) -> HTTPError? {
        let authority = request.head.authority ?? ""
        guard let host = Self.host(of: authority), Self.isLocalName(host) else {
            return HTTPError(
                .forbidden,
                message: "the device API answers only requests addressed to an IP address or localhost (Host: "
                    + "\(authority)): a name that resolves here is another site's (DNS rebinding)")
        }
        if BrowserOrigin.isCrossSite(request.head) {
            let origin = request.headers[.origin].map { " (Origin: \($0))" } ?? ""
            return HTTPError(.forbidden, message: "the device API refuses requests from another site's page\(origin)")
        }
        if let type = request.headers[.contentType]?.lowercased(),
            type.hasPrefix("text/plain") || type.hasPrefix("multipart/form-data")
        {
            return HTTPError(
                .unsupportedMediaType,
                message: "the device API reads JSON bodies: send Content-Type: application/json, not \(type)")
        }
        return nil
    }

    /// The host of an authority (`host`, `host:port`, `[v6]:port`), lowercased and without brackets.
    static func host(of authority: String) -> String? {
        let text = authority.lowercased()
        if text.hasPrefix("[") {
            guard let end = text.firstIndex(of: "]") else { return nil }
            return String(text[text.index(after: text.startIndex)..<end])
        }
        let host = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
        return host?.isEmpty == false ? host : nil
    }

    /// `localhost`, or an IP address written out (a name another site could control is neither).
    static func isLocalName(_ host: String) -> Bool {
        if host == "localhost" || host == "localhost." { return true }
        if host.contains(":") { return host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in UInt8(part) != nil && part.allSatisfy(\.isNumber) }
    }

}
