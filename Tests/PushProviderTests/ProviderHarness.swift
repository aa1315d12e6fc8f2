import APNSCore
import APNSGateway
import Courier
import Crypto
import Foundation
import GatewayTestSupport
import Logging
import PostgresNIO
import PushProvider
import TestPacing
import Testing

@testable import ProviderStorage

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A live gateway, a provider service on port 0 sending to it, and one app created through the API.
struct ProviderHarness {
    /// The providers under test log only what is critical (a green run prints nothing of its own);
    /// `HERALD_TEST_LOG=debug` (or any level) shows the rest.
    static let logger: Logger = {
        var logger = Logger(label: "herald-provider-test")
        logger.logLevel =
            ProcessInfo.processInfo.environment["HERALD_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }()

    let gateway: TestGateway
    let provider: PushProviderService
    let port: Int
    let dataDirectory: URL
    /// The app's id, secret API key and publishable key.
    let appID: String
    let apiKey: String
    let publishableKey: String
    static let bundleID = "com.example.app"

    var adminToken: String { provider.adminToken }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Runs `body` against a fresh gateway and provider, then stops both.
    /// A data directory of its own (none given) is the harness's: on PostgreSQL its schema is dropped after a run
    /// that passed. One given may be run again by a later `with` (a restart), so its schema stays.
    static func with(
        dataDirectory given: URL? = nil,
        configure: (inout PushProviderService.Configuration) -> Void = { _ in },
        _ body: (ProviderHarness) async throws -> Void
    ) async throws {
        ServerSlots.requireSlot("a provider and a gateway")
        let dataDirectory =
            given ?? FileManager.default.temporaryDirectory.appendingPathComponent("provider-\(UUID())")
        let gateway = try await TestGateway.start()
        try await gateway.run {
            var configuration = PushProviderService.Configuration(dataDirectory: dataDirectory)
            configuration.port = 0
            configuration.database = Self.database(for: dataDirectory)
            // The tests' webhook receivers listen on loopback, which webhooks may reach only when allowed.
            configuration.allowedWebhookHosts = ["127.0.0.1"]
            configure(&configuration)
            let provider = try await PushProviderService(configuration: configuration, logger: Self.logger)
            let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
            let service = Task { try await provider.run { port in portSink.yield(port) } }
            defer { service.cancel() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let base = "http://127.0.0.1:\(port)"
            let (status, created) = try await Self.request(
                "POST", base + "/v1/apps", key: provider.adminToken, body: Self.appBody(gateway))
            try #require(status == 201, "creating the app answered \(status): \(created)")
            let harness = ProviderHarness(
                gateway: gateway, provider: provider, port: port, dataDirectory: dataDirectory,
                appID: try #require(created["app"]["id"].string), apiKey: try #require(created["apiKey"].string),
                publishableKey: try #require(created["app"]["publishableKey"].string))
            try await body(harness)
            service.cancel()
            _ = await service.result
        }
        if given == nil { await dropSchema(of: dataDirectory) }
    }

    /// Drops the PostgreSQL schema of a data directory: the harness does for those it made, a test that names its
    /// own (to restart a provider on it) does when it ends (test runs left thousands behind).
    static func dropSchema(of dataDirectory: URL) async {
        guard case .postgres(let url) = database(for: dataDirectory) else { return }
        let store: PostgresStore
        do {
            store = try await PostgresStore(url: url, logger: logger, messageKey: SymmetricKey(size: .bits256))
        } catch {
            logger.warning("could not reach the test's schema to drop it", metadata: ["error": "\(error)"])
            return
        }
        do {
            _ = try await store.rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema(for: dataDirectory)) CASCADE"))
        } catch {
            logger.warning("could not drop the test's schema", metadata: ["error": "\(error)"])
        }
        await store.close()
    }

    /// SQLite under the data directory, or, when `HERALD_TEST_POSTGRES` holds a PostgreSQL URL, a schema of that
    /// database named after the data directory (a provider restarted on the same directory finds its tables).
    static func database(for dataDirectory: URL) -> PushProviderService.Database {
        guard let url = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"], !url.isEmpty else {
            return .sqlite
        }
        return .postgres(url: url + (url.contains("?") ? "&" : "?") + "schema=" + schema(for: dataDirectory))
    }

    /// The PostgreSQL schema named after a data directory.
    private static func schema(for dataDirectory: URL) -> String {
        let name = dataDirectory.lastPathComponent.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return "t_" + String(name.suffix(60))
    }

    /// The `POST /v1/apps` body for an app that sends to `gateway` with its test key.
    static func appBody(_ gateway: TestGateway, bundleID: String = bundleID) -> [String: Any] {
        [
            "name": "Example", "bundleID": bundleID, "environment": "development",
            "endpoint": "https://127.0.0.1:\(gateway.port)",
            "caPEM": gateway.server.certificateAuthority.caCertificatePEM,
            "authentication": [
                "kind": "token", "teamID": "DEF123GHIJ", "keyID": "ABC123DEFG",
                "privateKey": gateway.key.pemRepresentation,
            ],
        ]
    }

    /// A token the gateway issued for the app, as a device would get through the courier.
    func gatewayToken(bundleID: String = bundleID) throws -> String {
        try gateway.server.registry.register(bundleID: bundleID, environment: .development).token.hex
    }

    /// Sends one notification to a new device token (or to `token`) and waits for APNs' answer; returns the
    /// notification's id and the `apns-id` the device got and its token, as a device reports them.
    func sentToOneDevice(token given: String? = nil) async throws -> (id: String, apnsID: String, token: String) {
        let token = try given ?? gatewayToken()
        let (_, created) = try await call(
            "POST", "/v1/notifications", body: ["target": ["token": token], "content": ["body": "x"]])
        let id = try #require(created["id"].string)
        _ = try await finished(id)
        let stored = try #require(gateway.server.store.storedNotification(for: try APNSDeviceToken(hex: token)))
        return (id, stored.apnsID.uuidString, token)
    }

    /// Waits until `condition` holds, checking it again each time the provider records a change (a notification
    /// queued, APNs' answers, a device's registration or report, leases taken back), never on a timer.
    ///
    /// - Throws: when it does not hold within `seconds`: a bound for a test that would otherwise hang, far past what
    ///   a loaded two-core machine needs, never a measure of speed.
    func until(_ what: String, seconds: Double = 120, _ condition: () async throws -> Bool) async throws {
        let began = ContinuousClock.now
        let deadline = began + .seconds(seconds)
        var checks = 0
        while true {
            // Read before the condition, so a change in between wakes the wait at once.
            let seen = provider.changesRecorded
            if try await condition() { return }
            checks += 1
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw WaitTimeout(
                    what: what, waited: ContinuousClock.now - began,
                    lastSeen: "checked \(checks) times, \(provider.changesRecorded) changes recorded by the provider")
            }
            await provider.waitForChanges(after: seen, upTo: left)
        }
    }

    /// Calls the API with the app's secret key unless another is given.
    func call(_ method: String, _ path: String, key: String? = nil, body: Any? = nil) async throws -> (Int, JSON) {
        try await Self.request(method, baseURL + path, key: key ?? apiKey, body: body)
    }

    /// The provider's `/metrics`, in Prometheus' text format.
    func metrics() async throws -> String {
        var request = URLRequest(url: URL(string: baseURL + "/metrics")!)
        request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }

    /// Waits until the notification has no delivery queued or in flight; returns its report. The state is read again
    /// each time the provider records a batch of APNs' answers (the event that finishes a notification), not on a
    /// timer.
    ///
    /// `seconds` bounds a test that would otherwise hang, far past what a loaded two-core machine needs.
    func finished(_ id: String, key: String? = nil, seconds: Double = 180) async throws -> JSON {
        let deadline = Date().addingTimeInterval(seconds)
        var last = JSON(nil)
        while Date() < deadline {
            // Read before the state, so a batch recorded in between wakes the wait at once.
            let seen = provider.changesRecorded
            let (_, report) = try await call("GET", "/v1/notifications/\(id)", key: key)
            if report["state"].string == "done" { return report }
            last = report
            // Another process (a shared queue) may record it: then the state is read again a second later.
            await provider.waitForChanges(after: seen, upTo: .seconds(1))
        }
        let state = last["state"].string ?? "?"
        Issue.record("notification \(id) did not finish in \(seconds) s; last seen: \(state), stats \(last["stats"])")
        throw CancellationError()
    }

    /// Sends an HTTP request with `Authorization: Bearer key` and a JSON body; returns the status and JSON answer.
    static func request(
        _ method: String, _ url: String, key: String?, body: Any? = nil, headers: [String: String] = [:]
    )
        async throws -> (Int, JSON)
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody =
                try (body as? Data) ?? (JSONSerialization.data(withJSONObject: body, options: [.fragmentsAllowed]))
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        return (status, JSON(json))
    }
}

/// A JSON answer, read with subscripts: `answer["app"]["id"].string`.
// Safety: the value is what JSONSerialization made, never mutated after init.
struct JSON: @unchecked Sendable, CustomStringConvertible {
    let value: Any?

    init(_ value: Any?) { self.value = value }

    subscript(key: String) -> JSON { JSON((value as? [String: Any])?[key]) }
    subscript(index: Int) -> JSON {
        guard let array = value as? [Any], array.indices.contains(index) else { return JSON(nil) }
        return JSON(array[index])
    }
    var string: String? { value as? String }
    var int: Int? { (value as? NSNumber)?.intValue }
    var bool: Bool? { (value as? NSNumber)?.boolValue }
    var array: [JSON] { (value as? [Any])?.map(JSON.init) ?? [] }
    var object: [String: Any]? { value as? [String: Any] }
    var isNull: Bool { value == nil || value is NSNull }
    var description: String {
        guard let value, JSONSerialization.isValidJSONObject(value),
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
        else { return String(describing: value) }
        return String(decoding: data, as: UTF8.self)
    }
}
