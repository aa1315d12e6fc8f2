import APNSCore
import APNSGateway
import Crypto
import Foundation
import GatewayTestSupport
import Logging
import ProviderStorage
import PushProvider
import TestPacing
import Testing

@testable import HeraldCLI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `herald notifications` against a real provider sending to a local APNs: a notification's whole life from the
/// command line, without curl.
@Suite("herald notifications: create, watch, list, show, change, cancel, resend", .startsServers)
struct NotificationsCommandTests {
    @Test(
        "create --all --watch goes to every device and ends with the funnel; a scheduled one is changed, then cancelled"
    )
    func lifecycle() async throws {
        let gateway = try await TestGateway.start()
        try await gateway.run {
            try await RunningProvider.with { running in
                let (provider, base) = (running.provider, running.base)
                let app = try await provider.apps.ensure(
                    AppSettings(
                        name: "CLI", bundleID: "com.example.cli", environment: "development",
                        endpoint: "https://127.0.0.1:\(gateway.port)",
                        caPEM: gateway.server.certificateAuthority.caCertificatePEM, teamID: "DEF123GHIJ",
                        keyID: "ABC123DEFG", privateKeyPEM: gateway.key.pemRepresentation))
                for _ in 0..<3 {
                    let token = try gateway.server.registry.register(
                        bundleID: "com.example.cli", environment: .development
                    )
                    .token.hex
                    var request = URLRequest(url: URL(string: "\(base)/v1/devices?key=\(app.publishableKey)")!)
                    request.httpMethod = "POST"
                    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                    request.httpBody = Data(#"{"token": "\#(token)"}"#.utf8)
                    let (_, response) = try await URLSession.shared.data(for: request)
                    #expect((response as? HTTPURLResponse)?.statusCode == 201)
                }
                let where_ = running.flags

                let sent = await runHerald(
                    ["notifications", "create", "--all", "--title", "Hello", "--body", "from the CLI", "--watch"]
                        + where_)
                #expect(sent.status == 0, "\(sent.errorOutput)")
                #expect(sent.output.contains("created "), "\(sent.output)")
                #expect(sent.output.contains("[####################] 100%  3/3 answered"), "\(sent.output)")
                #expect(sent.output.contains("  accepted   3"), "\(sent.output)")
                let id = try #require(
                    sent.output.split(separator: "\n").first?.split(separator: " ").dropFirst().first.map(String.init))

                let listed = await runHerald(["notifications", "list"] + where_)
                #expect(
                    listed.output.contains("\(id)  done  all  3/3 answered (3 accepted, 0 rejected)"),
                    "\(listed.output)")
                let shown = await runHerald(["notifications", "show", id] + where_)
                #expect(shown.output.contains("  targeted   3"), "\(shown.output)")

                // A notification for tomorrow: changed while it has sent nothing, then cancelled.
                let later = Date().addingTimeInterval(86_400).formatted(.iso8601)
                let scheduled = await runHerald(
                    ["notifications", "create", "--all", "--title", "Later", "--send-at", later, "--json"] + where_)
                #expect(scheduled.status == 0, "\(scheduled.errorOutput)")
                let laterID = try #require(try JSONValue(parsing: Data(scheduled.output.utf8))["id"]?.string)
                let changed = await runHerald(
                    ["notifications", "change", laterID, "--title", "Later, changed"] + where_)
                #expect(
                    changed.status == 0 && changed.output.contains("scheduled"),
                    "\(changed.output)\(changed.errorOutput)")
                let cancelled = await runHerald(["notifications", "cancel", laterID] + where_)
                #expect(
                    cancelled.status == 0 && cancelled.output.contains("cancelled \(laterID): 3 queued"),
                    "\(cancelled.output)\(cancelled.errorOutput)")
                let again = await runHerald(["notifications", "cancel", laterID] + where_)
                #expect(again.status != 0 && again.errorOutput.contains("409"), "\(again.errorOutput)")

                let nobody = await runHerald(["notifications", "create", "--title", "Hi"] + where_)
                #expect(nobody.status != 0 && nobody.errorOutput.contains("say who gets it"), "\(nobody.errorOutput)")
                let resent = await runHerald(["notifications", "resend", id] + where_)
                #expect(
                    resent.status == 0 && resent.output.contains("resent 0 deliveries"),
                    "\(resent.output)\(resent.errorOutput)")
            }
        }
    }
}
