import Foundation
package import HTTPTypes

/// Where a browser says a request came from, for servers that must refuse another site's pages (the console's sign-in,
/// the simulated device's API, which has no credentials).
package enum BrowserOrigin {
    /// The header a browser tells where a request came from with.
    package static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!

    /// Whether a browser sent `request` from another site's page. `Sec-Fetch-Site` decides when the browser sends it
    /// (`cross-site` or `same-site`; a server's own page sends `same-origin` whatever its referrer policy); otherwise
    /// an `Origin` that is not the origin the request was sent to (`null` included). A request with neither header
    /// (`curl`, a script) is not.
    package static func isCrossSite(_ request: HTTPRequest) -> Bool {
        if let site = request.headerFields[secFetchSite]?.lowercased() {
            return site == "cross-site" || site == "same-site"
        }
        guard let origin = request.headerFields[.origin] else { return false }
        return !isSameOrigin(origin, authority: request.authority)
    }

    /// Whether a browser opened `request`'s address itself (typed, a bookmark, a link from another program such as
    /// the terminal: `Sec-Fetch-Site: none`) or from the server's own page (`same-origin`).
    package static func isOpenedDirectly(_ request: HTTPRequest) -> Bool {
        guard let site = request.headerFields[secFetchSite]?.lowercased() else { return false }
        return site == "none" || site == "same-origin"
    }

    /// Whether `origin` (`scheme://host[:port]`) names the host and port of `authority` (the request's `Host`),
    /// default ports written out.
    static func isSameOrigin(_ origin: String, authority: String?) -> Bool {
        guard let url = URL(string: origin), let host = url.host?.lowercased(), let authority = authority?.lowercased()
        else { return false }
        let defaultPort = url.scheme?.lowercased() == "https" ? 443 : 80
        let originAuthority =
            (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host) + ":\(url.port ?? defaultPort)"
        let hasPort = authority.contains(":") && !authority.hasSuffix("]")
        return originAuthority == (hasPort ? authority : authority + ":\(defaultPort)")
    }
}
