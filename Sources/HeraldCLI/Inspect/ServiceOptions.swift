import APNSCore
import ArgumentParser
import Foundation
import HeraldConsole
import NIOHTTP1

/// Where `herald status`, `devices` and `log` find the provider and the local APNs: the flags, else the
/// `running.json` of a `herald up`, `gateway` or `serve` started from this folder.
struct ServiceOptions: ParsableArguments {
    @OptionGroup var providerOptions: ProviderOptions

    @Option(
        name: .customLong("gateway"), help: "The local APNs' URL, for its delivery log (default: from running.json).")
    var gatewayURL: String?

    @Option(name: .customLong("gateway-token-file"), help: "The local APNs' admin token file (its DATA/admin-token).")
    var gatewayTokenFile: String?

    @Option(name: .customLong("ca-file"), help: "The local APNs' CA (its DATA/ca.pem).")
    var caFile: String?

    /// The folders whose `running.json` is read, in order.
    static let folders = ["./.herald/up", "./.herald/gateway", "./.herald/provider"]

    /// The running services this folder knows, with their folders.
    static func running() -> [(folder: String, file: RunningFile)] {
        folders.compactMap { folder in
            RunningFile.read(from: URL(fileURLWithPath: folder)).map { (folder, $0) }
        }
    }

    /// The provider to ask: its URL and admin token.
    func provider() throws -> (url: String, token: String) { try providerOptions.provider() }

    /// Runs `body` with a call to the provider, then closes the client, whether `body` threw or not.
    func withProvider<T>(_ body: (ServiceCall) async throws -> T) async throws -> T {
        let (url, token) = try provider()
        let client = try ConsoleHTTPClient(caPEM: nil)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(ServiceCall(client: client, base: url, token: token)))
        } catch {
            result = .failure(error)
        }
        await client.shutdown()
        return try result.get()
    }

    /// The local APNs to ask: its URL, admin token and CA.
    func gateway() throws -> (url: String, token: String, caPEM: String?) {
        let found = Self.running().first { $0.file.isAlive && $0.file.gateway != nil }?.file.gateway
        guard let url = gatewayURL ?? found?.url else {
            throw CommandFailure(
                "no local APNs found: nothing in \(Self.folders.joined(separator: ", ")) says one is running",
                next:
                    "start herald up (or herald gateway), or give --gateway URL --gateway-token-file FILE --ca-file FILE"
            )
        }
        guard let file = gatewayTokenFile ?? found?.adminTokenFile else {
            throw UsageError("--gateway-token-file FILE: the gateway's admin token (its DATA/admin-token)")
        }
        let ca = caFile ?? found?.caFile
        return (
            url, try Self.token(file, option: "--gateway-token-file"), try ca.map { try Self.read($0, "--ca-file") }
        )
    }

    static func token(_ path: String, option: String) throws -> String {
        try read(path, option).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func read(_ path: String, _ option: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw UsageError("\(option): cannot read \(path)")
        }
        return text
    }
}

/// Calls a herald service's JSON API and says clearly when it cannot.
struct ServiceCall {
    let client: ConsoleHTTPClient
    let base: String
    let token: String

    /// GETs `path` and parses the JSON answer.
    func get(_ path: String) async throws -> JSONValue {
        try await call(.GET, path)
    }

    /// Sends `method` to `path` (with a JSON `body` when given) and parses the JSON answer.
    func call(_ method: HTTPMethod, _ path: String, body: JSONValue? = nil) async throws -> JSONValue {
        guard let url = URL(string: base + path) else { throw UsageError("\(base + path) is not a URL") }
        let answer: ConsoleHTTPClient.Answer
        do {
            answer = try await client.send(method, url, body: body?.encoded(), bearer: token)
        } catch {
            throw CommandFailure(
                "cannot reach \(base): \(error)", next: "is it running? `herald status` shows what runs where")
        }
        // A 204 (a key deleted, ...) has no body: an empty object stands for it.
        let json = answer.status == 204 ? JSONValue.object(JSONObject([])) : try? JSONValue(parsing: answer.body)
        guard (200..<300).contains(answer.status), let json else {
            let field = json?["error"]?["field"]?.string.map { "\($0): " } ?? ""
            let message = (json?["error"]?["message"]?.string).map { field + $0 } ?? json?["error"]?.string
            throw CommandFailure(
                "\(url.absoluteString) answered \(answer.status)"
                    + (message.map { ": \($0)" } ?? ": \(String(decoding: answer.body.prefix(300), as: UTF8.self))"))
        }
        return json
    }
}
