import Crypto
import Foundation
import Logging
import PushProvider
import TestPacing
import Testing

@testable import HeraldCLI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What an API key or a device stored (an app's name, a user ID, a tag) reaches the operator's terminal through
/// `herald devices`, `status`, `why` and `log`: it must be printed as text, never as terminal control sequences.
@Suite("Text from the provider is printed, not obeyed, by the terminal", .startsServers)
struct TerminalEscapeTests {
    @Test("control characters are written out; line feeds, tabs and other scripts stay")
    func safeText() {
        #expect(TerminalText.safe("plain 文字\tand\nlines") == "plain 文字\tand\nlines")
        #expect(TerminalText.safe("\u{1B}[2J\u{1B}[Hall OK") == "\\u{1B}[2J\\u{1B}[Hall OK")
        #expect(TerminalText.safe("a\rb\u{07}c\u{9B}d\u{7F}") == "a\\u{D}b\\u{7}c\\u{9B}d\\u{7F}")
        #expect(TerminalText.safe("evil\u{202E}txt.exe") == "evil\\u{202E}txt.exe")
    }

    @Test("herald devices against a real provider prints an app's user ID and tags with escapes written out")
    func devicesCommand() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-escape-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = PushProviderService.Configuration(dataDirectory: folder)
        configuration.port = 0
        var logger = Logger(label: "herald-escape-test")
        logger.logLevel = .critical
        let provider = try await PushProviderService(configuration: configuration, logger: logger)
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let service = Task { try await provider.run { port in portSink.yield(port) } }
        defer { service.cancel() }
        var iterator = ports.makeAsyncIterator()
        let base = "http://127.0.0.1:\(try #require(await iterator.next()))"
        let app: [String: Any] = [
            "name": "\u{1B}[2J\u{1B}[Hall OK", "bundleID": "com.example.escape",
            "authentication": [
                "kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                "privateKey": P256.Signing.PrivateKey().pemRepresentation,
            ],
        ]
        let created = try await Self.call("POST", base + "/v1/apps", key: provider.adminToken, body: app)
        let apiKey = try #require(created["apiKey"] as? String)
        _ = try await Self.call(
            "POST", base + "/v1/devices", key: apiKey,
            body: [
                "token": String(repeating: "ab", count: 32), "userID": "\u{1B}]0;pwned\u{07}user",
                "tags": ["\u{1B}[31mred"],
            ])
        let result = await runHerald([
            "devices", "--provider", base, "--provider-token-file", provider.adminTokenPath.path,
        ])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(!result.output.contains("\u{1B}") && !result.output.contains("\u{07}"), "\(result.output)")
        #expect(result.output.contains("\\u{1B}]0;pwned\\u{7}user"), "\(result.output)")
        #expect(result.output.contains("\\u{1B}[31mred"), "\(result.output)")
        service.cancel()
        _ = await service.result
    }

    private static func call(_ method: String, _ url: String, key: String, body: Any) async throws -> [String: Any] {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
