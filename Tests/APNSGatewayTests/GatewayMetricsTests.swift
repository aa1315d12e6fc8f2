import APNSCore
import APNSGateway
import Foundation
import TestPacing
import Testing

@Suite("GET /admin/metrics: what the local APNs answered and keeps, for Prometheus", .startsServers)
struct GatewayMetricsTests {
    @Test(
        "pushes by result, reason and push type; devices, stored and connected; refusals; only with the admin token",
        arguments: [false, true])
    func metrics(http1: Bool) async throws {
        try await GatewayHarness.with { gateway, device in
            #expect(try await gateway.push(device.token).status == 200)
            #expect(try await gateway.push(device.token, headers: ["apns-push-type": "background"]).status == 200)
            let unknown = try APNSDeviceToken(hex: String(repeating: "ab", count: 32))
            #expect(try await gateway.push(unknown).status == 400)
            let refused = try await gateway.curl(
                method: "GET", path: "/admin/metrics", headers: ["authorization": "Bearer gwa_guess"], http1: http1)
            #expect(refused.status == 401)
            let reply = try await gateway.curl(
                method: "GET", path: "/admin/metrics",
                headers: ["authorization": "Bearer \(gateway.server.adminCredential.token)"], http1: http1)
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"]?.hasPrefix("text/plain") == true, "\(reply.headers)")
            for line in [
                #"herald_gateway_pushes_total{result="accepted",reason="",push_type="none"} 1"#,
                #"herald_gateway_pushes_total{result="accepted",reason="",push_type="background"} 1"#,
                #"herald_gateway_pushes_total{result="rejected",reason="BadDeviceToken",push_type="none"} 1"#,
                #"herald_gateway_refusals_total{kind="admin"} 1"#,
                "herald_gateway_devices 1.0",
                "herald_gateway_build_info{version=",
                "herald_gateway_journal_bytes ",
                "herald_gateway_journal_write_seconds_count ",
            ] {
                #expect(reply.body.contains(line), "\(line) in:\n\(reply.body)")
            }
            #expect(!reply.body.contains(device.token.hex) && !reply.body.contains(unknown.hex))
        }
    }
}
