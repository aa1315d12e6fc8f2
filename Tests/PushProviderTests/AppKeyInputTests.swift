import Crypto
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

/// `POST /v1/apps` with a `.p8` key pasted the ways people paste it: one that lost its line breaks is the same key,
/// one cut short is named as such (not "an RSA key?").
@Suite("An app's key as pasted into the API", .startsServers)
struct AppKeyInputTests {
    @Test("a key on one line makes a working app; a key cut short is 400 naming it")
    func pasted() async throws {
        try await ProviderHarness.with { harness in
            var body = ProviderHarness.appBody(harness.gateway, bundleID: "com.example.pasted")
            var authentication = body["authentication"] as! [String: Any]
            let pem = harness.gateway.key.pemRepresentation
            authentication["privateKey"] = pem.replacingOccurrences(of: "\n", with: "")
            body["authentication"] = authentication
            let (created, app) = try await harness.call("POST", "/v1/apps", key: harness.adminToken, body: body)
            #expect(created == 201, "\(app)")
            let id = try #require(app["app"]["id"].string)
            let check = try await harness.call("POST", "/v1/apps/\(id)/check", key: harness.adminToken).1
            #expect(check["ok"].bool == true, "the repaired key signs what APNs accepts: \(check)")

            authentication["privateKey"] = String(pem.prefix(120))
            body["authentication"] = authentication
            body["bundleID"] = "com.example.cut"
            let (refused, why) = try await harness.call("POST", "/v1/apps", key: harness.adminToken, body: body)
            #expect(refused == 400, "\(why)")
            let message = why["error"]["message"].string ?? ""
            #expect(
                why["error"]["field"].string == "authentication.privateKey" && message.contains("cut short"), "\(why)")
        }
    }
}
