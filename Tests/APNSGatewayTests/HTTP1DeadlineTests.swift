import APNSGateway
import NIOCore
import TestPacing
import Testing

/// The gateway's HTTP/1.1 deadlines (admin API and courier upgrades): a head that never ends and a keep-alive
/// connection left idle are closed, so neither holds a socket for long.
@Suite("The gateway's HTTP/1.1 request deadlines", .startsServers)
struct HTTP1DeadlineTests {
    @Test("half a request head is closed after the deadline; a finished request's idle connection after six times it")
    func trickledHeadAndIdleConnection() async throws {
        let gateway = try await GatewayHarness.start { $0.setupTimeout = .seconds(1) }
        let script =
            GatewayHarness.tlsClientOpening(alpn: "http/1.1") + """
                def connect():
                    s = context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
                    s.settimeout(60)
                    return s
                def seconds_until_closed(s, began):
                    closed(s)
                    return round(time.monotonic() - began, 2)
                half = connect()
                print("alpn", half.selected_alpn_protocol())
                half.sendall(b"GET /admin/status HTTP/1.1\\r\\nHost: localhost\\r\\n")
                print("half", seconds_until_closed(half, time.monotonic()))
                idle = connect()
                idle.sendall(b"GET /admin/status HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n")
                answer = idle.recv(12)
                began = time.monotonic()
                print("answered", answer.decode()[:8])
                print("idle", seconds_until_closed(idle, began))
                """
        let lines = try await GatewayHarness.python(script, [String(gateway.port)]).split(separator: "\n").map(
            String.init)
        var seconds: [String: String] = [:]
        for line in lines {
            let words = line.split(separator: " ").map(String.init)
            if words.count == 2 { seconds[words[0]] = words[1] }
        }
        #expect(seconds["alpn"] == "http/1.1", "\(lines)")
        #expect(seconds["answered"] == "HTTP/1.1", "\(lines)")
        // Closed by the deadline, not by the 60 s read timeout: the head's within 1 s (+ a loaded machine's slack),
        // the idle connection's within 6 s of its answer (the head and body deadlines came before it).
        let half = Double(seconds["half"] ?? "") ?? -1
        let idle = Double(seconds["idle"] ?? "") ?? -1
        #expect(half >= 0.5 && half < 20, "\(lines)")
        #expect(idle >= 3 && idle < 30, "\(lines)")
        try await gateway.server.shutdown()
    }
}
