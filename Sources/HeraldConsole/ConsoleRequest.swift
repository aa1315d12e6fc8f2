import APNSCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PushProvider

/// What the console reads from requests and adds to every answer.
enum ConsoleRequest {
    /// The session cookie's name.
    static let cookieName = "herald_console"
    /// The header the pages send their CSRF token in.
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// Methods that change nothing and so need no CSRF token.
    static func isSafe(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options
    }

    /// The session identifier in the request's cookie.
    static func sessionID(of request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// The cookie that carries a session, or (with `nil`) the one that clears it; `Secure` when the console is served
    /// over HTTPS (`herald serve --tls-cert`), so the browser never sends it in plain HTTP.
    static func cookie(for sessionID: String?, secure: Bool) -> String {
        let lifetime = sessionID == nil ? 0 : Int(ConsoleSessions.idleLifetime)
        return "\(cookieName)=\(sessionID ?? ""); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(lifetime)"
            + (secure ? "; Secure" : "")
    }

    /// The headers every console answer carries: no inline script, nothing from another site, never framed.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy:
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
            + "media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            + "form-action 'self'; frame-ancestors 'none'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        .cacheControl: "no-store",
    ]

    /// An HTML page.
    static func html(_ text: String, status: HTTPResponse.Status = .ok, cookie: String? = nil) -> Response {
        var headers = securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A redirect (303, so a form's POST becomes a GET).
    static func redirect(to location: String, cookie: String? = nil) -> Response {
        var headers = securityHeaders
        headers[.location] = location
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }

    /// A JSON answer.
    static func json(_ data: Data, status: HTTPResponse.Status = .ok) -> Response {
        var headers = securityHeaders
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A JSON answer from an encodable value (ISO 8601 times, sorted keys).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        try JSONCoding.response(value, status: status, headers: securityHeaders)
    }

    /// The fields of an `application/x-www-form-urlencoded` body (at most 64 KiB).
    static func form(_ request: Request) async throws -> [String: String] {
        let buffer = try await JSONCoding.body(of: request, limit: 64 << 10)
        var fields: [String: String] = [:]
        for pair in String(decoding: buffer, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[parts[0]] = parts.count == 2 ? parts[1] : ""
        }
        return fields
    }
}
