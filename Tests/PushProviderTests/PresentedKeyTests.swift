import HTTPTypes
import Hummingbird
import NIOCore
import Testing

@testable import PushProvider

/// The key a request presents, read on every `/v1` request.
@Suite("The key a request presents")
struct PresentedKeyTests {
    private func request(_ fields: HTTPFields, path: String = "/v1/apps") -> Request {
        Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "h", path: path, headerFields: fields),
            body: RequestBody(buffer: ByteBuffer()))
    }

    @Test("Bearer in any case; not another scheme, nor Bearer without its space; then X-Herald-Key, then ?key=")
    func schemes() {
        for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
            #expect(Caller.presentedKey(request([.authorization: "\(scheme) pk_1"])) == "pk_1", "\(scheme)")
        }
        #expect(
            Caller.presentedKey(request([.authorization: "Bearer  pk_1"])) == " pk_1", "a second space is the key's")
        for value in ["Basic pk_1", "Bearerpk_1", "Bearer", "Bearer\tpk_1", "Bearez pk_1"] {
            #expect(Caller.presentedKey(request([.authorization: value])) == nil, "\(value)")
        }
        #expect(Caller.presentedKey(request([.heraldKey: "sk_2"])) == "sk_2")
        #expect(Caller.presentedKey(request([.authorization: "Basic x", .heraldKey: "sk_2"])) == "sk_2")
        #expect(Caller.presentedKey(request([:], path: "/v1/apps?key=pk_3")) == "pk_3")
        #expect(Caller.presentedKey(request([:])) == nil)
    }
}
