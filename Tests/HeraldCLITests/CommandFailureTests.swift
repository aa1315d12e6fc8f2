import Foundation
import TestPacing
import Testing

@testable import HeraldCLI

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Every command's mistakes say what failed, where, and what to do next", .startsServers)
struct CommandFailureTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("herald-\(UUID().uuidString)")
    }

    @Test("a port in use: exit 1 naming the address and the flag, and the new data folder is not left behind")
    func portInUse() async throws {
        try await SendGateway.with { gateway in
            let port = try #require(gateway.url.split(separator: ":").last.map(String.init))
            let data = Self.folder()
            let result = await runHerald(["gateway", "--port", port, "--manage-port", "0", "--data", data.path])
            #expect(result.status == 1)
            #expect(result.errorOutput.contains("cannot listen on 127.0.0.1:\(port)"), "\(result.errorOutput)")
            #expect(result.errorOutput.contains("--port PORT"), "\(result.errorOutput)")
            #expect(!result.errorOutput.contains("errno"), "no raw NIO error: \(result.errorOutput)")
            #expect(!FileManager.default.fileExists(atPath: data.path), "a failed start leaves no half-made folder")
        }
    }

    @Test("herald up with ports taken names every one with its flag, before any key or token is made")
    func upPortsInUse() async throws {
        let (first, second) = (try ListeningSocket(), try ListeningSocket())
        let data = Self.folder()
        let result = await runHerald([
            "up", "--data", data.path, "--gateway-port", "\(first.port)", "--manage-port", "0",
            "--provider-port", "\(second.port)", "--device-api-port", "0",
        ])
        #expect(result.status == 1)
        #expect(
            result.errorOutput.contains("2 ports cannot be listened on; nothing was started"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("127.0.0.1:\(first.port): another process has that port (--gateway-port)"))
        #expect(
            result.errorOutput.contains("127.0.0.1:\(second.port): another process has that port (--provider-port)"))
        #expect(!result.output.contains("token"), "no token printed: \(result.output)")
        #expect(!FileManager.default.fileExists(atPath: data.path), "nothing made: no key, no token, no folder")
        withExtendedLifetime((first, second)) {}
        let outOfRange = await runHerald([
            "up", "--data", data.path, "--gateway-port", "70000", "--manage-port=-1", "--provider-port", "0",
            "--device-api-port", "0",
        ])
        #expect(outOfRange.status == 1)
        #expect(outOfRange.errorOutput.contains("127.0.0.1:70000: a port is 1 to 65535, or 0 for any free one"))
        #expect(outOfRange.errorOutput.contains("127.0.0.1:-1: a port is 1 to 65535"), "\(outOfRange.errorOutput)")
    }

    @Test("herald serve's TLS flags: both or neither, and an unreadable certificate or key is named")
    func serveTLSFlags() async throws {
        let data = Self.folder()
        let alone = await runHerald(["serve", "--port", "0", "--data", data.path, "--tls-cert", "/nonexistent.pem"])
        #expect(alone.status == 2)
        #expect(alone.errorOutput.contains("give --tls-cert and --tls-key together"), "\(alone.errorOutput)")
        let missing = await runHerald([
            "serve", "--port", "0", "--data", data.path, "--tls-cert", "/nonexistent.pem", "--tls-key",
            "/nonexistent.pem",
        ])
        #expect(missing.status == 2)
        #expect(missing.errorOutput.contains("--tls-cert: cannot read a PEM certificate from /nonexistent.pem"))
        #expect(!FileManager.default.fileExists(atPath: data.path), "nothing started, nothing made")
    }

    @Test(
        "herald serve's metrics and trace options: a missing or short scrape token, both ways at once, a ratio or endpoint out of range are named"
    )
    func serveObservabilityFlags() async throws {
        let data = Self.folder()
        let serve = ["serve", "--port", "0", "--data", data.path]
        let missing = await runHerald(serve + ["--metrics-token-file", "/nonexistent.token"])
        #expect(
            missing.errorOutput.contains("--metrics-token-file: no file /nonexistent.token"), "\(missing.errorOutput)")
        let short = FileManager.default.temporaryDirectory.appendingPathComponent("short-\(UUID()).token")
        try "abc\n".write(to: short, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: short) }
        let weak = await runHerald(serve + ["--metrics-token-file", short.path])
        #expect(weak.status != 0 && weak.errorOutput.contains("holds 3 characters; a token of at least 16"))
        let both = await runHerald(serve + ["--metrics-token-file", short.path, "--public-metrics"])
        #expect(
            both.status == 2 && both.errorOutput.contains("give --public-metrics or --metrics-token-file, not both"))
        for ratio in ["-1", "1.5", "1e30", "nan"] {
            let out = await runHerald(serve + ["--trace-sample-ratio=\(ratio)"])
            #expect(out.status == 2 && out.errorOutput.contains("--trace-sample-ratio is 0 to 1"), "\(ratio)")
        }
        let endpoint = await runHerald(serve + ["--otlp-endpoint", "ftp://collector:4318"])
        #expect(endpoint.status == 2 && endpoint.errorOutput.contains("is not an http:// or https:// URL"))
        #expect(!FileManager.default.fileExists(atPath: data.path), "nothing started, nothing made")
    }

    @Test("a second process on a data folder is refused, naming the first one")
    func folderInUse() async throws {
        let data = Self.folder()
        defer { try? FileManager.default.removeItem(at: data) }
        let held = try DataFolderLock(data, command: "herald test")
        let result = await runHerald(["gateway", "--port", "0", "--manage-port", "0", "--data", data.path])
        #expect(result.status == 1)
        #expect(
            result.errorOutput.contains("is in use by another herald process (pid \(getpid()), herald test)"),
            "\(result.errorOutput)")
        #expect(result.errorOutput.contains("--data DIR"))
        #expect(FileManager.default.fileExists(atPath: data.path), "the folder in use is untouched")
        withExtendedLifetime(held) {}
    }

    @Test("sending where nothing listens says so and what to check, with no NIO dump")
    func connectionRefused() async throws {
        try await SendGateway.with { gateway in
            let result = await runHerald(
                [
                    "send", "--url", "https://127.0.0.1:1", "--ca-file", gateway.caFile, "--auth-key", gateway.authKey,
                    "--topic", "com.example.app", "--token", gateway.token, "--body", "x",
                ])
            #expect(result.status == 1)
            #expect(result.output.contains("nothing is listening there"), "\(result.output)")
            #expect(!result.output.contains("SingleConnectionFailure"), "\(result.output)")
            #expect(result.errorOutput.contains("is herald gateway or herald up running there?"))
        }
    }

    @Test("sending to a plain-HTTP port or a server whose CA is not given says which, with the flag, no TLS dump")
    func tlsMistakes() async throws {
        try await SendGateway.with { gateway in
            let plain = try ListeningSocket()
            plain.answerEachConnection(with: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            let common = [
                "--auth-key", gateway.authKey, "--topic", "com.example.app", "--token", gateway.token, "--body", "x",
            ]
            let http = await runHerald(
                ["send", "--url", "https://127.0.0.1:\(plain.port)", "--ca-file", gateway.caFile] + common)
            #expect(http.status == 1)
            #expect(http.output.contains("that port speaks plain HTTP, not TLS"), "\(http.output)")
            #expect(http.errorOutput.contains("next: use the local APNs' URL"), "\(http.errorOutput)")
            let untrusted = await runHerald(["send", "--url", gateway.url] + common)
            #expect(untrusted.status == 1)
            #expect(untrusted.output.contains("the server's certificate is not trusted"), "\(untrusted.output)")
            #expect(untrusted.errorOutput.contains("next: pass --ca-file FILE"), "\(untrusted.errorOutput)")
            for output in [http.output, http.errorOutput, untrusted.output, untrusted.errorOutput] {
                #expect(!output.contains("BoringSSL") && !output.contains(".build/"), "no TLS library dump: \(output)")
            }
        }
    }

    @Test("a connection that cannot be made is logged once, not once for each of the 500 notifications waiting on it")
    func oneWarningPerConnection() async throws {
        try await SendGateway.with { gateway in
            let tokens = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID()).txt")
            try String(repeating: gateway.token + "\n", count: 500).write(to: tokens, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: tokens) }
            let result = await runHerald([
                "send", "--url", gateway.url, "--auth-key", gateway.authKey, "--topic", "com.example.app",
                "--tokens", tokens.path, "--body", "x",
            ])
            #expect(result.status != 0)
            let warnings = (result.output + "\n" + result.errorOutput).split(separator: "\n")
                .filter { $0.contains("warning") && $0.contains("cannot connect") }
            #expect(warnings.count == 1, "\(warnings.count) warnings: \(warnings.prefix(3))")
        }
    }

    @Test("a device whose gateway is not running says so and what to do")
    func deviceWithoutGateway() async throws {
        try await SendGateway.with { gateway in
            let manifest = try DeviceCommandTests.file(#"{"bundleID": "com.example.app"}"#)
            let data = Self.folder()
            let result = await runHerald(
                [
                    "device", "--gateway", "https://127.0.0.1:1", "--ca-file", gateway.caFile, "--app", manifest,
                    "--data", data.path, "--no-terminal", "--api-port", "0",
                ])
            #expect(result.status == 1)
            #expect(
                result.errorOutput.contains("cannot reach the gateway's courier at 127.0.0.1:1: nothing is listening"),
                "\(result.errorOutput)")
            #expect(result.errorOutput.contains("next: is herald gateway or herald up running?"))
            #expect(!FileManager.default.fileExists(atPath: data.path))
        }
    }

    @Test("--token that is no device token: exit 2 and nothing sent, naming the token")
    func badToken() async throws {
        try await SendGateway.with { gateway in
            let result = await runHerald(gateway.arguments(["--token", "nothex", "--body", "x"]))
            #expect(result.status == 2)
            #expect(result.errorOutput.contains("--token 'nothex' is not a device token"), "\(result.errorOutput)")
            #expect(result.output.isEmpty)
        }
    }
}

/// A TCP socket listening on a free loopback port, closed when released.
final class ListeningSocket {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 1) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts connections on a thread of its own and answers each with `text`, then closes it.
    func answerEachConnection(with text: String) {
        let descriptor = descriptor
        Thread.detachNewThread {
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(connection, &buffer, buffer.count)
                _ = text.withCString { write(connection, $0, strlen($0)) }
                close(connection)
            }
        }
    }

    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }
}
