import DeviceSimulator
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

/// The device API has no credentials, so a web page in the developer's browser must not be able to use it: curl
/// sends exactly the headers such a page's requests carry.
@Suite("The device API refuses what another site's page sends", .startsServers)
struct DeviceAPIBrowserTests {
    @Test("a Host that is a name (DNS rebinding), another Origin, a cross-site fetch, a text/plain body: refused")
    func refusedFromPages() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try DeviceHarness.manifest(example: "000-ritl-demo")
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            try await DeviceHarness.withAPI(of: device) { api in
                let settings = "\(api)/apps/\(manifest.bundleID)/settings"
                let change = #"{"alerts": false}"#
                let refused: [(String, [String], Int)] = [
                    ("GET", ["-H", "Host: attacker.example:2198"], 403),
                    ("GET", ["-H", "Host: rebind.attacker.example"], 403),
                    ("POST", ["-H", "Origin: http://attacker.example", "-H", "Content-Type: application/json"], 403),
                    ("POST", ["-H", "Sec-Fetch-Site: cross-site", "-H", "Content-Type: application/json"], 403),
                    ("POST", ["-H", "Content-Type: text/plain;charset=UTF-8"], 415),
                    ("POST", ["-H", "Content-Type: multipart/form-data; boundary=x"], 415),
                ]
                for (method, headers, status) in refused {
                    let url = method == "GET" ? "\(api)/notifications" : settings
                    let (answer, code) = try await Self.curl(
                        method, url, headers: headers, body: method == "POST" ? change : nil)
                    #expect(code == status, "\(method) \(headers): \(code) \(answer)")
                }
                #expect(device.installedApps.first?.bundleID == manifest.bundleID)
                let (_, apps) = try await Self.curl("GET", "\(api)/apps", headers: [])
                #expect(apps == 200)
                // Scripts and the console (no Origin, JSON or curl -d's form type, an IP or localhost) still work.
                let local = api.replacingOccurrences(of: "127.0.0.1", with: "localhost")
                #expect(try await Self.curl("GET", "\(local)/apps", headers: []).1 == 200)
                let sameOrigin = ["-H", "Origin: \(api)", "-H", "Content-Type: application/json"]
                #expect(try await Self.curl("GET", "\(api)/apps", headers: sameOrigin).1 == 200)
                let (_, changed) = try await Self.curl("POST", settings, headers: [], body: change)
                #expect(changed == 200 || changed == 204)
            }
            await device.stop()
        }
    }

    /// One request with curl (`-d` sends `application/x-www-form-urlencoded` unless a header says otherwise); the
    /// body and status. curl runs through ``ChildProcess``, whose output is read on a thread of its own: a
    /// blocking read here would hold one of the two threads Swift's concurrency has on a two-core machine.
    static func curl(_ method: String, _ url: String, headers: [String], body: String? = nil) async throws -> (
        String, Int
    ) {
        var arguments = ["-s", "-X", method, "-w", "\n%{http_code}", "--max-time", "60"] + headers
        if let body { arguments += ["-d", body] }
        let result = try await ChildProcess.run("curl", arguments + [url], mergeErrors: false)
        let text = String(decoding: result.output, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.dropLast().joined(separator: "\n"), Int(lines.last ?? "") ?? 0)
    }
}
