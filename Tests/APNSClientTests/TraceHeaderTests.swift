import APNSCore
import NIOCore
import NIOHPACK
import Testing

@testable import APNSClient

@Suite("A notification's traceparent goes to a local APNs, never to Apple's")
struct TraceHeaderTests {
    func headers(authority: String) -> HPACKHeaders {
        var notification = APNSNotification(
            deviceToken: String(repeating: "ab", count: 32), headers: APNSRequestHeaders(),
            payload: ByteBuffer(string: "{}"))
        notification.traceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        var builder = RequestHeaderBuilder(authority: authority)
        return builder.headers(for: notification, authorization: nil)
    }

    @Test(
        "Apple's hosts never get it, whatever the caller set",
        arguments: ["api.push.apple.com:443", "api.sandbox.push.apple.com", "API.DEVELOPMENT.PUSH.APPLE.COM:2197"])
    func apple(authority: String) {
        #expect(headers(authority: authority)["traceparent"].isEmpty)
    }

    @Test("a local APNs gets it", arguments: ["127.0.0.1:2197", "gateway.internal:443"])
    func local(authority: String) {
        #expect(
            headers(authority: authority)["traceparent"] == ["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"])
    }
}
