import APNSCore
import Crypto
import Foundation
import HeraldTime
import Synchronization
import Testing

@testable import APNSGateway

/// A clock the tests move.
@Suite("Gateway checks that depend on time and on the connection")
struct ProviderRequestProcessorTests {
    let key = P256.Signing.PrivateKey()
    let otherKey = P256.Signing.PrivateKey()
    let registry = DeviceRegistry()
    let now = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))

    func processor() throws -> ProviderRequestProcessor {
        var verifier = APNSProviderTokenVerifier()
        try verifier.addKey(pem: key.pemRepresentation, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        try verifier.addKey(
            pem: otherKey.pemRepresentation, keyID: "XYZ987WVUT", teamID: "DEF123GHIJ", topics: ["com.example.other"])
        return ProviderRequestProcessor(
            registry: registry, keys: ProviderKeys(verifier), store: NotificationStore(), faults: InjectedFaults(),
            defaultEnvironment: .development, clock: now)
    }

    func request(_ token: APNSDeviceToken, authorization: String) -> ProviderRequest {
        var request = ProviderRequest(method: "POST", path: "/3/device/\(token.hex)", authority: "127.0.0.1:2197")
        request.headers = [("authorization", authorization), ("apns-topic", "com.example.app")]
        request.body = Array(#"{"aps":{"alert":"Hi"}}"#.utf8)
        return request
    }

    func bearer(_ key: P256.Signing.PrivateKey, keyID: String = "ABC123DEFG", at date: Date) async throws -> String {
        try await APNSProviderTokenSigner(privateKeyPEM: key.pemRepresentation, keyID: keyID, teamID: "DEF123GHIJ")
            .token(issuedAt: date).authorizationHeaderValue
    }

    @Test("a token reused on its connection is still refused once it is more than an hour old")
    func cachedTokenAges() async throws {
        let processor = try processor()
        let connection = ConnectionAuthentication()
        let device = try registry.register(bundleID: "com.example.app", environment: .development).device
        let authorization = try await bearer(key, at: now.currentDate)
        #expect(
            await processor.process(request(device.token, authorization: authorization), connection: connection).status
                == 200)
        now.advance(by: .seconds(3000))
        #expect(
            await processor.process(request(device.token, authorization: authorization), connection: connection).status
                == 200)
        now.advance(by: .seconds(601))
        let stale = await processor.process(request(device.token, authorization: authorization), connection: connection)
        #expect(stale.status == 403)
        #expect(stale.error?.reason == .expiredProviderToken)
    }

    @Test("a new token within 20 minutes is TooManyProviderTokenUpdates; after, it is accepted")
    func tokenUpdates() async throws {
        let processor = try processor()
        let connection = ConnectionAuthentication()
        let device = try registry.register(bundleID: "com.example.app", environment: .development).device
        #expect(
            await processor.process(
                request(device.token, authorization: try await bearer(key, at: now.currentDate)), connection: connection
            ).status == 200)
        now.advance(by: .seconds(60))
        let early = await processor.process(
            request(device.token, authorization: try await bearer(key, at: now.currentDate)), connection: connection)
        #expect(early.status == 429)
        #expect(early.error?.reason == .tooManyProviderTokenUpdates)
        now.advance(by: .seconds(1200))
        #expect(
            await processor.process(
                request(device.token, authorization: try await bearer(key, at: now.currentDate)), connection: connection
            ).status == 200)
    }

    @Test("another key on a bound connection is UnrelatedKeyIdInToken; a restricted key elsewhere is TopicDisallowed")
    func keyBinding() async throws {
        let processor = try processor()
        let device = try registry.register(bundleID: "com.example.app", environment: .development).device
        let bound = ConnectionAuthentication()
        #expect(
            await processor.process(
                request(device.token, authorization: try await bearer(key, at: now.currentDate)), connection: bound
            ).status == 200)
        let other = try await bearer(otherKey, keyID: "XYZ987WVUT", at: now.currentDate)
        let unrelated = await processor.process(request(device.token, authorization: other), connection: bound)
        #expect(unrelated.status == 403)
        #expect(unrelated.error?.reason == .unrelatedKeyIDInToken)
        let disallowed = await processor.process(
            request(device.token, authorization: other), connection: ConnectionAuthentication())
        #expect(disallowed.status == 400)
        #expect(disallowed.error?.reason == .topicDisallowed)
    }
}

@Suite("Admin API bad input")
struct AdminRequestProcessorTests {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("admin-\(UUID().uuidString)")
    // One credential for every case: the cases run in parallel, each with its own instance of this suite.
    static let credential = try! AdminCredential.loadOrCreate(in: directory)
    var credential: AdminCredential { Self.credential }
    var admin: AdminRequestProcessor {
        AdminRequestProcessor(
            registry: DeviceRegistry(), store: NotificationStore(), keys: ProviderKeys(), faults: InjectedFaults(),
            credential: credential, certificateAuthority: nil, clock: SystemWallClock())
    }

    @Test(
        "malformed requests get 400 or 404 with a JSON error that says what to send",
        arguments: [
            ("POST", "/admin/devices", "not json", 400), ("POST", "/admin/devices", #"{"topic":"a b"}"#, 400),
            ("POST", "/admin/devices", #"{"topic":"a.b","environment":"staging"}"#, 400),
            ("DELETE", "/admin/devices/abcd", "", 404), ("DELETE", "/admin/devices/zz", "", 400),
            ("GET", "/admin/deliveries?after=x", "", 400), ("GET", "/admin/deliveries?limit=0", "", 400),
            ("GET", "/admin/deliveries?apns-id=nope", "", 400),
            ("PUT", "/admin/devices", "", 405), ("POST", "/admin/keys", #"{"key-id":"ABC123DEFG"}"#, 400),
            ("POST", "/admin/keys", #"{"key-id":"ABC123DEFG","team-id":"DEF123GHIJ","pem":"junk"}"#, 400),
            ("GET", "/admin/nothing", "", 404),
        ]
    )
    func badInput(method: String, path: String, body: String, status: Int) throws {
        let answer = admin.process(
            method: method, path: path, body: Array(body.utf8), authorization: "Bearer \(credential.token)", source: nil
        )
        #expect(answer.status == status)
        let error = try JSONValue(parsing: Data(answer.body ?? []))["error"]?.string
        #expect(error?.isEmpty == false)
    }
}

@Suite("Admin API routes")
struct AdminRouteTests {
    @Test(
        "a path with another method is 405 naming the methods it takes; a path that is no endpoint is 404",
        arguments: [
            ("PUT", "/admin/devices", 405, "(POST is)"), ("GET", "/admin/faults", 405, "(DELETE, POST is)"),
            ("GET", "/admin/devices/ab/expire", 405, "(POST is)"), ("POST", "/admin/devices/ab", 405, "(DELETE is)"),
            ("GET", "/admin/devices/ab/unknown", 404, "no admin endpoint"), ("GET", "/admin", 404, "no admin endpoint"),
            ("GET", "/other/devices", 404, "no admin endpoint"),
            ("GET", "/admin/devices/ab/notifications/more", 404, "no admin endpoint"),
        ] as [(String, String, Int, String)])
    func methodsAndPaths(method: String, path: String, status: Int, says: String) throws {
        let admin = AdminRequestProcessorTests().admin
        let answer = admin.process(
            method: method, path: path, body: [],
            authorization: "Bearer \(AdminRequestProcessorTests.credential.token)",
            source: nil)
        #expect(answer.status == status)
        let error = try JSONValue(parsing: Data(answer.body ?? []))["error"]?.string ?? ""
        #expect(error.contains(says), "\(error)")
    }

    @Test("every route's pattern is distinct by method")
    func distinct() {
        let keys = AdminRequestProcessor.routes.map { "\($0.method) \($0.pattern.joined(separator: "/"))" }
        #expect(Set(keys).count == keys.count)
    }
}

@Suite("Admin API: the delivery log in order")
struct AdminDeliveryLogTests {
    @Test("the latest entries, then only what came after the cursor, oldest first")
    func recentEntries() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("admin-\(UUID().uuidString)")
        let credential = try AdminCredential.loadOrCreate(in: directory)
        let store = NotificationStore()
        let admin = AdminRequestProcessor(
            registry: DeviceRegistry(), store: store, keys: ProviderKeys(), faults: InjectedFaults(),
            credential: credential, certificateAuthority: nil, clock: SystemWallClock())
        func get(_ path: String) throws -> JSONValue {
            let answer = admin.process(
                method: "GET", path: path, body: [], authorization: "Bearer \(credential.token)", source: nil)
            #expect(answer.status == 200)
            return try JSONValue(parsing: Data(answer.body ?? []))
        }
        let ids = (0..<5).map { _ in UUID() }
        for id in ids { store.log.record(id, .init(.received, at: Date())) }
        let latest = try get("/admin/deliveries?limit=2")
        #expect(
            latest["entries"]?.array?.compactMap { $0["apns-id"]?.string }
                == ids.suffix(2).map { $0.uuidString.lowercased() })
        #expect(latest["last"] == 4)
        store.log.record(ids[4], .init(.delivered, at: Date()))
        let newer = UUID()
        store.log.record(newer, .init(.received, at: Date()))
        let after = try get("/admin/deliveries?after=4")
        #expect(after["entries"]?.array?.compactMap { $0["apns-id"]?.string } == [newer.uuidString.lowercased()])
        #expect(after["entries"]?.array?.first?["sequence"] == 5)
        let all = try get("/admin/deliveries?after=-1&limit=1000")
        #expect(all["entries"]?.array?.count == 6)
        #expect(all["entries"]?.array?[4]["events"]?.array?.count == 2)
        #expect(try get("/admin/deliveries?after=5")["entries"]?.array?.isEmpty == true)
    }
}
