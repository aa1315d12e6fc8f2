import APNSCore
import APNSGateway
import Courier
import Crypto
import Foundation
import GatewayTestSupport
import Logging
import NIOCore
import Synchronization
import TestPacing
import Testing

@Suite("Who may use the gateway: the admin token, device secrets, connection limits", .startsServers)
struct GatewayTrustTests {
    @Test(
        "every admin route answers 401 without the admin token, over HTTP/2 and HTTP/1.1, and changes nothing",
        arguments: [false, true])
    func adminNeedsToken(http1: Bool) async throws {
        try await GatewayHarness.with { gateway, device in
            let forged = P256.Signing.PrivateKey()
            let pem = forged.publicKey.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
            let calls: [(String, String, String?)] = [
                ("POST", "/admin/devices", #"{"topic":"com.example.app","count":1000}"#),
                ("DELETE", "/admin/devices/\(device.token.hex)", nil),
                ("POST", "/admin/devices/\(device.token.hex)/expire", nil),
                ("GET", "/admin/devices/\(device.token.hex)/notifications", nil),
                ("GET", "/admin/deliveries?apns-id=\(UUID().uuidString)", nil),
                ("POST", "/admin/keys", #"{"key-id":"FORGED1234","team-id":"DEF123GHIJ","pem":"\#(pem)"}"#),
                ("POST", "/admin/certificates", #"{"topic":"com.example.app"}"#),
                ("POST", "/admin/faults", #"{"status":500,"reason":"InternalServerError","count":100}"#),
                ("DELETE", "/admin/faults", nil),
            ]
            for (method, path, body) in calls {
                let reply = try await gateway.admin(method, path, body: body, http1: http1, asAdmin: false)
                #expect(reply.status == 401, "\(method) \(path)")
                #expect(reply.json["error"]?.string?.contains("admin-token") == true)
            }
            let wrong = try await gateway.curl(
                method: "POST", path: "/admin/faults", headers: ["authorization": "Bearer gwa_guess"],
                body: #"{"status":500,"reason":"InternalServerError"}"#, http1: http1)
            #expect(wrong.status == 401)
            #expect(wrong.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
            // Nothing changed: the token is valid and no fault is armed, the forged key signs nothing.
            #expect(try await gateway.push(device.token).status == 200)
            let signer = try APNSProviderTokenSigner(
                privateKeyPEM: forged.pemRepresentation, keyID: "FORGED1234", teamID: "DEF123GHIJ")
            let forgedPush = try await gateway.push(
                device.token,
                headers: ["authorization": try await signer.token(issuedAt: Date()).authorizationHeaderValue])
            #expect(forgedPush.status == 403)
            #expect(gateway.server.registry.all.count == 1)
            #expect(gateway.server.refusals.count(.admin) == calls.count + 1)
            // The refusals are reported to the admin.
            let refusals = try await gateway.admin("GET", "/admin/refusals", body: nil, http1: http1, asAdmin: false)
            #expect(refusals.status == 401, "reading them needs the token too")
            let report = try await gateway.admin("GET", "/admin/refusals", body: nil, http1: http1)
            #expect(report.json["refusals"]?["admin"]?.number?.intValue == calls.count + 2, "\(report.json)")
            #expect(report.json["refusals"]?["connection-limit"]?.number?.intValue == 0)
        }
    }

    @Test("the admin token is made once, kept 0600 in a 0700 folder, and is the same after a restart")
    func adminTokenFile() async throws {
        let first = try await GatewayHarness.start()
        let credential = first.server.adminCredential
        #expect(credential.created)
        #expect(credential.path == first.directory.appendingPathComponent("admin-token"))
        #expect(try String(contentsOf: credential.path, encoding: .utf8) == credential.token + "\n")
        #expect(try mode(of: credential.path) == 0o600)
        #expect(try mode(of: first.directory) == 0o700)
        #expect(try mode(of: first.directory.appendingPathComponent("journal")) == 0o600)
        try await first.server.shutdown()
        let second = try await GatewayHarness.start(directory: first.directory, key: first.key)
        #expect(!second.server.adminCredential.created)
        #expect(second.server.adminCredential.token == credential.token)
        #expect(try await second.admin("GET", "/admin/deliveries?apns-id=\(UUID().uuidString)").status == 404)
        try await second.server.shutdown()
    }

    @Test("a device cannot claim another device's token on the courier: its stored push stays for the owner")
    func courierHijack() async throws {
        try await GatewayHarness.with { gateway, _ in
            let owner = try await gateway.courier()
            let registered = try await owner.register(bundleID: "com.example.app", environment: .development)
            let secret = try #require(registered.secret)
            #expect(secret.hasPrefix("ds_"))
            await owner.close()
            let stored = try await gateway.push(registered.token, body: #"{"aps":{"alert":"for the owner"}}"#)
            #expect(stored.status == 200)

            let thief = try await gateway.courier()
            for guess in [nil, "ds_guess", String(secret.dropLast()) + "x"] {
                await #expect(throws: GatewayDataError.self) {
                    _ = try await thief.register(
                        bundleID: "com.example.app", environment: .development, token: registered.token, secret: guess)
                }
            }
            // Not registered, so it can neither unregister the token nor acknowledge its pushes.
            await #expect(throws: GatewayDataError.self) { try await thief.unregister(registered.token) }
            #expect(gateway.server.registry.device(for: registered.token)?.invalidation == nil)
            #expect(gateway.server.refusals.count(.courierMessage) == 4)
            await thief.close()

            let back = try await gateway.courier()
            let again = try await back.register(
                bundleID: "com.example.app", environment: .development, token: registered.token, secret: secret)
            #expect(again.token == registered.token && again.secret == nil)
            #expect(String(decoding: try await back.nextNotification().payload, as: UTF8.self).contains("owner"))
            await back.close()
        }
    }

    @Test("a token made through the admin API comes with its secret, which a device proves on the courier")
    func adminTokenSecret() async throws {
        try await GatewayHarness.with { gateway, _ in
            let made = try await gateway.admin("POST", "/admin/devices", body: #"{"topic":"com.example.app"}"#)
            #expect(made.status == 201)
            let token = try APNSDeviceToken(hex: try #require(made.json["token"]?.string))
            let secret = try #require(made.json["secret"]?.string)
            let many = try await gateway.admin(
                "POST", "/admin/devices", body: #"{"topic":"com.example.app","count":3}"#)
            #expect(many.json["secrets"]?.array?.count == 3)
            let device = try await gateway.courier()
            let registered = try await device.register(
                bundleID: "com.example.app", environment: .development, token: token, secret: secret)
            #expect(registered.token == token)
            await device.close()
        }
    }

    @Test("one courier connection holds at most 64 tokens; the 65th register is refused, a known one still answers")
    func tokensPerConnection() async throws {
        try await GatewayHarness.with { gateway, _ in
            let device = try await gateway.courier()
            var first: CourierClient.Registration?
            for _ in 0..<64 {
                let registered = try await device.register(bundleID: "com.example.app", environment: .development)
                first = first ?? registered
            }
            await #expect(throws: GatewayDataError.self) {
                _ = try await device.register(bundleID: "com.example.app", environment: .development)
            }
            let again = try await device.register(
                bundleID: "com.example.app", environment: .development, token: first?.token, secret: first?.secret)
            #expect(again.token == first?.token)
            #expect(gateway.server.registry.all.count == 65)
            await device.close()
        }
    }

    @Test("--insecure-admin is refused off loopback; on loopback admin calls need no token")
    func insecureAdmin() async throws {
        var configuration = GatewayServer.Configuration(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID())"))
        configuration.host = "0.0.0.0"
        configuration.insecureAdmin = true
        #expect(throws: GatewayDataError.self) { _ = try GatewayServer(configuration: configuration) }
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let server = try GatewayServer(configuration: configuration)
        let port = try await server.start()
        let reply = try await GatewayHarness.rawCurl([
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", server.certificateAuthority.caPath.path,
            "-X", "POST", "--data", #"{"topic":"com.example.app"}"#, "https://127.0.0.1:\(port)/admin/devices",
        ])
        #expect(reply == "201")
        try await server.shutdown()
    }

    @Test(
        "at the limit a new connection takes the place of the oldest still setting up, so a real client gets in under a fast flood; when all have set up, one more is refused; one that never sets up is closed in time"
    )
    func connectionLimits() async throws {
        // Long enough that "at once" (under 15 s, however loaded the machine) is clearly not the deadline.
        let gateway = try await GatewayHarness.start {
            $0.maxConnections = 3
            $0.setupTimeout = .seconds(30)
        }
        // Connections whose TLS handshake starts and never ends: each is known to be accepted once the server's
        // hello arrives.
        let script =
            GatewayHarness.tlsClientOpening(alpn: "h2") + """
                def half_open():
                    s = socket.create_connection(("127.0.0.1", port))
                    hello = ssl.MemoryBIO()
                    handshake = context.wrap_bio(ssl.MemoryBIO(), hello)
                    try:
                        handshake.do_handshake()
                    except ssl.SSLWantReadError:
                        pass
                    s.sendall(hello.read())
                    s.settimeout(90)
                    assert s.recv(1) != b""
                    return s
                def set_up():
                    s = context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
                    s.sendall(b"PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
                    s.settimeout(90)
                    assert s.recv(1) != b""
                    return s
                flood = [half_open() for _ in range(3)]
                began = time.monotonic()
                newer = half_open()
                print("shed", closed(flood[0]), round(time.monotonic() - began, 2) < 15)
                real = set_up()
                print("real", real.selected_alpn_protocol(), round(time.monotonic() - began, 2) < 15)
                for s in flood[1:] + [newer]:
                    print("idle", closed(s), round(time.monotonic() - began, 2))
                full = [real, set_up(), set_up()]
                extra = socket.create_connection(("127.0.0.1", port))
                extra.settimeout(90)
                began = time.monotonic()
                print("refused", closed(extra), round(time.monotonic() - began, 2) < 15)
                """
        let lines = try await GatewayHarness.python(script, [String(gateway.port)]).split(separator: "\n").map(
            String.init)
        #expect(lines.first == "shed True True", "\(lines)")
        #expect(lines.dropFirst().first == "real h2 True", "\(lines)")
        let idle = lines.filter { $0.hasPrefix("idle") }.map { $0.split(separator: " ") }
        #expect(idle.count == 3 && idle.allSatisfy { $0[1] == "True" }, "\(lines)")
        #expect(idle.allSatisfy { Double($0[2]) ?? 999 < 90 }, "closed by the 30 s setup deadline: \(lines)")
        #expect(lines.last == "refused True True", "\(lines)")
        #expect(gateway.server.refusals.count(.connectionLimit) == 3)
        try await gateway.server.shutdown()
    }

    @Test(
        "an HTTP/2 connection with frames coming (PINGs) stays open past the idle time; once quiet, GOAWAY IdleTimeout")
    func idleTimeoutOnARealConnection() async throws {
        let gateway = try await GatewayHarness.start { $0.idleTimeout = .seconds(1) }
        try await gateway.base.run {
            let script = """
                import socket, ssl, sys, time
                port, ca = int(sys.argv[1]), sys.argv[2]
                context = ssl.create_default_context(cafile=ca)
                context.set_alpn_protocols(["h2"])
                s = context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
                s.sendall(b"PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
                began = time.monotonic()
                while time.monotonic() - began < 2.5:
                    s.sendall(bytes([0, 0, 8, 6, 0, 0, 0, 0, 0]) + b"12345678")
                    time.sleep(0.3)
                quiet = time.monotonic()
                s.settimeout(20)
                buffer = b""
                while True:
                    while len(buffer) >= 9 and len(buffer) >= 9 + int.from_bytes(buffer[:3], "big"):
                        length, kind = int.from_bytes(buffer[:3], "big"), buffer[3]
                        payload, buffer = buffer[9:9 + length], buffer[9 + length:]
                        if kind == 7:
                            print("goaway", payload[8:].decode(), round(time.monotonic() - quiet, 2))
                            sys.exit(0)
                    chunk = s.recv(65536)
                    if not chunk:
                        print("closed without GOAWAY")
                        sys.exit(0)
                    buffer += chunk
                """
            let output = try await GatewayHarness.python(
                script, [String(gateway.port), gateway.server.certificateAuthority.caPath.path])
            let words = output.split(separator: " ")
            #expect(words.first == "goaway" && words.dropFirst().first?.contains("IdleTimeout") == true, "\(output)")
            // Sent during the PINGs, the GOAWAY would already be waiting when the script stops sending.
            let afterQuiet = Double(words.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
            #expect(afterQuiet >= 0.5 && afterQuiet < 15, "\(output)")
        }
    }

    @Test("an unmasked or reserved-opcode courier frame fails the connection with close code 1002 (RFC 6455)")
    func courierFrameRules() async throws {
        try await GatewayHarness.with { gateway, _ in
            let script = """
                import socket, ssl, sys
                port, ca = int(sys.argv[1]), sys.argv[2]
                def attempt(frame):
                    context = ssl.create_default_context(cafile=ca)
                    context.set_alpn_protocols(["http/1.1"])
                    s = context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
                    s.sendall(b"GET /courier HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n"
                              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n")
                    head = b""
                    while b"\\r\\n\\r\\n" not in head:
                        head += s.recv(1)
                    s.sendall(frame)
                    s.settimeout(5)
                    answer = b""
                    while True:
                        chunk = s.recv(64)
                        if not chunk:
                            break
                        answer += chunk
                    print(head.split(b"\\r\\n")[0].decode(), answer.hex())
                attempt(b"\\x81\\x02hi")
                attempt(b"\\x83\\x80abcd")
                """
            let output = try await GatewayHarness.python(
                script, [String(gateway.port), gateway.server.certificateAuthority.caPath.path])
            let lines = output.split(separator: "\n")
            #expect(lines.count == 2)
            for line in lines { #expect(line == "HTTP/1.1 101 Switching Protocols 880203ea") }
        }
    }

    private func mode(of url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
    }
}
