import Foundation
import Testing

@testable import HeraldCLI

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Every command's mistakes say what failed, where, and what to do next")
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
