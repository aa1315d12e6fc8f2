import APNSClient
import APNSCore
import ArgumentParser
import Foundation
import HeraldConsole
import NIOHTTP1

/// `herald doctor --app ID`: the provider runs the credentials and clock checks with the app's sealed credentials
/// (`POST /v1/apps/{id}/check`), and this prints them as `herald doctor` prints its own.
enum ProviderCheck {
    /// RFC 3986's unreserved characters: an app ID stays as it is, anything else is percent-encoded.
    private static let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    static func run(app: String, provider: ProviderOptions, json: Bool) async throws {
        let (url, token) = try provider.provider()
        let client = try ConsoleHTTPClient(caPEM: nil)
        defer { Task { await client.shutdown() } }
        let path = Self.path(of: app)
        let answer = try await ServiceCall(client: client, base: url, token: token).call(.POST, path)
        let io = CommandIO.current
        let checks = Self.checks(in: answer)
        let failed = checks.filter { $0.outcome == .failed }.count
        if json {
            io.write(String(decoding: answer.encoded(), as: UTF8.self) + "\n")
        } else {
            io.write("herald doctor: app \(app) of \(url), sending to \(answer["endpoint"]?.string ?? "?")\n")
            io.write(checks.map(\.text).joined(separator: "\n") + "\n")
            io.write(failed == 0 ? "all checks passed\n" : "\(failed) check(s) failed\n")
        }
        if failed > 0 || checks.isEmpty { throw ExitCode(1) }
    }

    /// The checks in the provider's answer to `POST /v1/apps/{id}/check`.
    static func checks(in answer: JSONValue) -> [DoctorCheck] {
        (answer["checks"]?.array ?? []).map { check in
            DoctorCheck(
                name: check["check"]?.string ?? "?",
                outcome: check["outcome"]?.string.flatMap(DoctorCheck.Outcome.init(rawValue:)) ?? .failed,
                found: check["found"]?.string ?? "", next: check["next"]?.string)
        }
    }

    /// The path of app `app`'s check.
    static func path(of app: String) -> String {
        "/v1/apps/\(app.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? app)/check"
    }
}
