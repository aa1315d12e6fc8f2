import APNSCore
import APNSGateway
import Courier
import Crypto
import Foundation
import GatewayTestSupport

/// A running gateway on a free port with one registered key, for live tests, with the clients that drive it.
struct GatewayHarness {
    let base: TestGateway
    var server: GatewayServer { base.server }
    var port: Int { base.port }
    var managePort: Int { base.managePort }
    var signer: APNSProviderTokenSigner { base.signer }
    var directory: URL { base.directory }
    var key: P256.Signing.PrivateKey { base.key }

    /// A gateway on a fresh data directory, or on `directory` (a restart keeps what the gateway stored there), trusting
    /// `key` for key ID ABC123DEFG; `configure` changes the configuration first.
    static func start(
        directory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString)"),
        key: P256.Signing.PrivateKey = P256.Signing.PrivateKey(),
        configure: (inout GatewayServer.Configuration) -> Void = { _ in }
    ) async throws -> GatewayHarness {
        GatewayHarness(base: try await TestGateway.start(directory: directory, key: key, configure: configure))
    }

    /// Runs `body` against a fresh gateway with one development device of `com.example.app` (with its secret), then
    /// stops the gateway.
    static func with(
        _ body: (GatewayHarness, DeviceRegistry.Registration) async throws -> Void
    ) async throws {
        let gateway = try await start()
        let device = try gateway.server.registry.register(bundleID: "com.example.app", environment: .development)
        try await gateway.base.run { try await body(gateway, device) }
    }

    func authorization() async throws -> String {
        try await signer.token(issuedAt: Date()).authorizationHeaderValue
    }

    /// What curl saw.
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
        /// curl's exit status (28: it timed out).
        var exitStatus: Int32
    }

    /// Sends a push to `token` for `com.example.app` with a valid provider token and `headers` on top.
    func push(
        _ token: APNSDeviceToken, body: String = #"{"aps":{"alert":"Hello"}}"#, headers: [String: String] = [:]
    ) async throws -> Reply {
        var all = ["authorization": try await authorization(), "apns-topic": "com.example.app"]
        all.merge(headers) { $1 }
        return try await curl(path: "/3/device/\(token.hex)", headers: all, body: body)
    }

    /// A JSON object from an admin endpoint, called with the gateway's admin token (or without any, `asAdmin: false`).
    func admin(
        _ method: String = "GET", _ path: String, body: String? = nil, http1: Bool = false, asAdmin: Bool = true
    ) async throws -> (status: Int, json: JSONObject) {
        // An empty value makes curl send no such header.
        let headers = ["authorization": asAdmin ? "Bearer \(server.adminCredential.token)" : ""]
        let reply = try await curl(method: method, path: path, headers: headers, body: body, http1: http1)
        guard case .object(let object)? = try? JSONValue(parsing: Data(reply.body.utf8)) else {
            return (reply.status, JSONObject())
        }
        return (reply.status, object)
    }

    /// A courier connection, as a device makes one.
    func courier() async throws -> CourierClient {
        try await CourierClient.connect(
            host: "127.0.0.1", port: port, caPEM: server.certificateAuthority.caCertificatePEM)
    }

    /// Runs `curl --http2 --cacert ca.pem` (or `--http1.1`) against the gateway; a call under `/admin/` carries the
    /// admin token unless `headers` has an `authorization`.
    func curl(
        method: String = "POST",
        path: String,
        headers: [String: String] = [:],
        body: String? = nil,
        http1: Bool = false,
        withoutALPN: Bool = false,
        clientCertificate: (certificate: URL, key: URL)? = nil,
        port: Int? = nil
    ) async throws -> Reply {
        var arguments = [
            "-s", "-i", "--max-time", "60", http1 ? "--http1.1" : "--http2", "--cacert",
            server.certificateAuthority.caPath.path, "-X", method,
        ]
        if withoutALPN { arguments += ["--no-alpn"] + (http1 ? [] : ["--http2-prior-knowledge"]) }
        if let clientCertificate {
            arguments += ["--cert", clientCertificate.certificate.path, "--key", clientCertificate.key.path]
        }
        var headers = headers
        if path.hasPrefix("/admin/"), headers["authorization"] == nil {
            headers["authorization"] = "Bearer \(server.adminCredential.token)"
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            arguments += ["-H", value.isEmpty ? "\(name):" : "\(name): \(value)"]
        }
        if let body { arguments += ["--data-binary", body] }
        arguments.append("https://127.0.0.1:\(port ?? self.port)\(path)")
        let (output, exitStatus) = try await Self.runWithStatus("curl", arguments)
        let parts = output.components(separatedBy: "\r\n\r\n")
        let head = parts.first?.components(separatedBy: "\r\n") ?? []
        let status = head.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            let pair = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { fields[pair[0].lowercased()] = pair[1] }
        }
        return Reply(
            status: status, headers: fields, body: parts.dropFirst().joined(separator: "\r\n\r\n"),
            exitStatus: exitStatus)
    }

    /// Runs `nghttp -nv` (`requests` times on one connection) and returns its frame trace.
    func nghttp(path: String, headers: [String: String], requests: Int) async throws -> String {
        let payload = FileManager.default.temporaryDirectory.appendingPathComponent("payload-\(UUID().uuidString).json")
        try Data(#"{"aps":{"alert":"Hello"}}"#.utf8).write(to: payload)
        var arguments = ["-nv", "-t", "60", "-m", String(requests), "-d", payload.path]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        arguments.append("https://127.0.0.1:\(port)\(path)")
        return try await run("nghttp", arguments)
    }

    /// Runs a Python 3 script with `arguments` and returns what it printed (the tests' raw-socket clients).
    static func python(_ script: String, _ arguments: [String] = []) async throws -> String {
        try await runWithStatus("python3", ["-c", script] + arguments).output
    }

    /// The opening of a raw-socket Python client (for ``python(_:_:)``): the gateway's port from the first argument, a
    /// TLS `context` offering `alpn` that trusts any certificate, and `closed(s)`, which reads until the gateway closes
    /// `s` (or resets it) and returns `True`.
    static func tlsClientOpening(alpn: String) -> String {
        """
        import socket, ssl, sys, time
        port = int(sys.argv[1])
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.set_alpn_protocols(["\(alpn)"])
        def closed(s):
            try:
                while s.recv(65536) != b"":
                    pass
            except (ConnectionResetError, ssl.SSLError):
                pass
            return True

        """
    }

    /// Runs curl with exactly `arguments` and returns what it printed.
    static func rawCurl(_ arguments: [String]) async throws -> String {
        try await runWithStatus("curl", arguments).output
    }

    /// Runs a process and returns its standard output (and standard error), read on a thread of its own while it
    /// runs (``ChildProcess``).
    private func run(_ executable: String, _ arguments: [String]) async throws -> String {
        try await Self.runWithStatus(executable, arguments).output
    }

    private static func runWithStatus(_ executable: String, _ arguments: [String]) async throws
        -> (output: String, status: Int32)
    {
        // Their warnings (nghttp does not check the gateway's certificate) belong in the trace, not the test log.
        let result = try await ChildProcess.run(executable, arguments)
        return (String(decoding: result.output, as: UTF8.self), result.status)
    }

}
