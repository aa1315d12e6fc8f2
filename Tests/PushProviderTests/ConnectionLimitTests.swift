import Foundation
import GatewayTestSupport
import HeraldSupport
import PushProvider
import TestPacing
import Testing

/// Idle and half-sent connections cannot hold the provider's sockets, and past its connection limit a new client is
/// told why, with a real server on a port and raw sockets from another process.
@Suite("The provider's connection limits", .startsServers)
struct ConnectionLimitTests {
    @Test("idle and half-sent connections are closed at the head deadline; over the limit a client gets 503 at once")
    func idleFlood() async throws {
        try await ProviderHarness.with(configure: {
            $0.httpLimits = HTTPServerLimits(
                idleTimeout: .seconds(20), requestHeadTimeout: .seconds(8), maximumConnections: 20)
        }) { harness in
            // 30 sockets against a limit of 20, half of them sending half a request head: some are refused with 503
            // at once, the others are closed at the head deadline, and then a new client gets in. The timing is
            // loose on purpose: the whole suite runs in parallel on two cores.
            let script = #"""
                import socket, sys, time
                port = int(sys.argv[1])
                held = []
                for i in range(30):
                    s = socket.create_connection(("127.0.0.1", port))
                    if i % 2: s.sendall(b"GET /v1/apps HTTP/1.1\r\nHost: x\r\n")  # half a head, never finished
                    held.append(s)
                start = time.time()
                refused = closed = 0
                for s in held:
                    s.settimeout(60)
                    try:
                        first = s.recv(4096)
                        if first.startswith(b"HTTP/1.1 503"): refused += 1
                        while first: first = s.recv(4096)
                        closed += 1
                    except socket.timeout:
                        pass  # still open: not closed by the server
                    except OSError:
                        closed += 1
                print("refused:", refused, "closed:", closed, "within:", round(time.time() - start, 1))
                fresh = socket.create_connection(("127.0.0.1", port))
                fresh.settimeout(30)
                fresh.sendall(b"GET /v1/apps HTTP/1.1\r\nHost: x\r\n\r\n")
                print("fresh:", fresh.recv(4096).decode().split("\r\n")[0])
                """#
            let result = try await ChildProcess.run("python3", ["-c", script, String(harness.port)])
            let output = String(decoding: result.output, as: UTF8.self)
            let refused = output.split(separator: "refused: ").last.flatMap { Int($0.prefix(while: \.isNumber)) }
            #expect((refused ?? 0) >= 1, "a connection over the limit gets 503: \(output)")
            #expect(output.contains("closed: 30 "), "every idle or half-sent connection is closed: \(output)")
            #expect(output.contains("fresh: HTTP/1.1 401"), "a new client did not get in: \(output)")
        }
    }

    @Test("a connection idle between requests closes after the idle timeout")
    func idleKeepAlive() async throws {
        try await ProviderHarness.with(configure: {
            // Long enough that the harness's own first request (over a loaded machine) is not cut off.
            $0.httpLimits = HTTPServerLimits(idleTimeout: .seconds(4), requestHeadTimeout: .seconds(30))
        }) { harness in
            let script = #"""
                import socket, sys, time
                s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                s.sendall(b"GET /v1/apps HTTP/1.1\r\nHost: x\r\n\r\n")
                s.settimeout(90)
                s.recv(4096)
                start = time.time()
                while s.recv(4096): pass
                print("closed after:", round(time.time() - start, 1))
                """#
            let result = try await ChildProcess.run("python3", ["-c", script, String(harness.port)])
            let output = String(decoding: result.output, as: UTF8.self)
            let after = output.split(separator: "after: ").last.flatMap { Double($0.prefix(while: { $0 != "\n" })) }
            // Idle 4 s; a loaded machine may fire the timer late, but without it the connection never closes.
            #expect(after.map { $0 >= 3 && $0 < 80 } == true, "\(output)")
        }
    }
}
