import APNSClient
import NIOCore
import NIOPosix
import TestPacing
import Testing

@testable import HeraldCLI

@Suite("herald doctor's TLS step when the server hangs up first", .startsServers)
struct ConnectionCheckTests {
    /// Under load a server (a gateway at its connection limit) may close a connection before the check adds its TLS
    /// handlers: the step then fails with a message instead of trapping on a promise it never completed ("leaking
    /// promise created at ConnectionCheck.swift", which ended a whole test run).
    @Test("a connection closed before the TLS handlers are added is a failed TLS step, not a crash")
    func closedBeforeHandshake() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let listener = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        let channel = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
        try await channel.close()
        let check = await ConnectionCheck.handshake(
            on: channel, endpoint: APNSEndpoint(host: "127.0.0.1", port: port), timeout: .seconds(5))
        #expect(check.outcome == .failed, "\(check.text)")
        try await listener.close()
    }
}
