import DeviceSimulator
import Foundation
import GatewayTestSupport
import Testing

/// The device API has no credentials, so a web page in the developer's browser must not be able to use it: curl
/// sends exactly the headers such a page's requests carry.
@Suite("The device API refuses what another site's page sends")
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
                    let (answer, code) = try Self.curl(
                        method, url, headers: headers, body: method == "POST" ? change : nil)
                    #expect(code == status, "\(method) \(headers): \(code) \(answer)")
                }
                #expect(device.installedApps.first?.bundleID == manifest.bundleID)
                let (_, apps) = try Self.curl("GET", "\(api)/apps", headers: [])
                #expect(apps == 200)
                // Scripts and the console (no Origin, JSON or curl -d's form type, an IP or localhost) still work.
                let local = api.replacingOccurrences(of: "127.0.0.1", with: "localhost")
                #expect(try Self.curl("GET", "\(local)/apps", headers: []).1 == 200)
                let sameOrigin = ["-H", "Origin: \(api)", "-H", "Content-Type: application/json"]
                #expect(try Self.curl("GET", "\(api)/apps", headers: sameOrigin).1 == 200)
                let (_, changed) = try Self.curl("POST", settings, headers: [], body: change)
                #expect(changed == 200 || changed == 204)
            }
            await device.stop()
        }
    }

    /// One request with curl (`-d` sends `application/x-www-form-urlencoded` unless a header says otherwise); the
    /// body and status.
    static func curl(_ method: String, _ url: String, headers: [String], body: String? = nil) throws -> (String, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["curl", "-s", "-X", method, "-w", "\n%{http_code}", "--max-time", "20"] + headers
        if let body { arguments += ["-d", body] }
        process.arguments = arguments + [url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.dropLast().joined(separator: "\n"), Int(lines.last ?? "") ?? 0)
    }
}
