import NIOHPACK
import Testing

@testable import APNSGateway

/// A valid request's fields.
private let validFields: [(String, String)] = [
    (":method", "POST"), (":scheme", "https"), (":authority", "127.0.0.1"), (":path", "/3/device/00"),
    ("apns-topic", "com.example.app"),
]

/// The header block rules the gateway checks itself (NIOHTTP2's own check is off); the cases no HTTP/2 client here can
/// send (nghttp and curl refuse to), the rest are sent live in GatewayAdminAndBadInputTests.
@Suite("Request header block rules (RFC 9113 §8.2, §8.3)")
struct RequestHeaderRulesTests {
    func parse(_ fields: [(String, String)], trailers: [(String, String)]? = nil) throws -> ProviderRequest {
        try ProviderRequest(ReceivedStream(head: HPACKHeaders(fields), trailers: trailers.map { HPACKHeaders($0) }))
    }

    @Test("a valid block: pseudo-header fields into their places, the rest in order, trailers after them")
    func validBlock() throws {
        let request = try parse(validFields, trailers: [("x-after", "1")])
        #expect(request.method == "POST")
        #expect(request.path == "/3/device/00")
        #expect(request.authority == "127.0.0.1")
        #expect(request.headers.map(\.name) == ["apns-topic", "x-after"])
    }

    @Test("host stands in for a missing :authority")
    func host() throws {
        let request = try parse(validFields.filter { $0.0 != ":authority" } + [("host", "api.push.apple.com")])
        #expect(request.authority == "api.push.apple.com")
        #expect(request.header("host") == nil)
    }

    @Test(
        "a malformed block is refused",
        arguments: [
            ("a pseudo-header field after a regular one", validFields + [(":method", "POST")]),
            ("a pseudo-header field twice", [(":method", "POST")] + validFields),
            ("no :path", validFields.filter { $0.0 != ":path" }),
            ("no :scheme", validFields.filter { $0.0 != ":scheme" }),
            ("an empty :path", validFields.map { $0.0 == ":path" ? (":path", "") : $0 }),
            ("a response pseudo-header field", [(":status", "200")] + validFields),
            ("an unknown pseudo-header field", [(":protocol", "websocket")] + validFields),
            ("an uppercase field name", validFields + [("Apns-Topic", "x")]),
            ("an empty field name", validFields + [("", "x")]),
            ("a space in a pseudo-header value", validFields.map { $0.0 == ":path" ? (":path", "/3/device/ 00") : $0 }),
            ("a line feed in a value", validFields + [("apns-id", "a\nb")]),
            ("a carriage return in a value", validFields + [("apns-id", "a\rb")]),
            (
                "a NUL as the last byte of a 300-byte value",
                validFields + [("authorization", String(repeating: "a", count: 300) + "\u{0}")]
            ),
            ("a quote in a field name", validFields + [("x\"y", "1")]),
            ("a non-ASCII field name", validFields + [("x-ü", "1")]),
            ("transfer-encoding", validFields + [("transfer-encoding", "chunked")]),
            ("te other than trailers", validFields + [("te", "gzip")]),
            ("CONNECT with a :path", [(":method", "CONNECT"), (":authority", "x:443"), (":path", "/")]),
        ] as [(String, [(String, String)])])
    func malformed(_ what: String, fields: [(String, String)]) {
        #expect(throws: MalformedHeaderBlock.self, "\(what)") { try parse(fields) }
    }

    @Test(
        "te: trailers, a tab and control characters other than NUL, CR and LF in a value, and a CONNECT request with only :method and :authority are allowed"
    )
    func allowedEdges() throws {
        _ = try parse(validFields + [("te", "trailers")])
        _ = try parse(validFields + [("x-tab", "a\tb\u{0B}\u{0C}\u{0E}" + String(repeating: "b", count: 300))])
        #expect(try parse([(":method", "CONNECT"), (":authority", "x:443")]).method == "CONNECT")
    }

    @Test("a pseudo-header field in trailers is refused")
    func pseudoInTrailers() {
        #expect(throws: MalformedHeaderBlock.self) { try parse(validFields, trailers: [(":path", "/")]) }
    }
}
