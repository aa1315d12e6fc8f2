public import APNSClient
public import APNSCore
package import APNSGateway
package import Crypto
public import DeviceSimulator
public import Foundation
import HeraldSupport
import Logging
public import UserNotifications

/// Apple's push service for a test: Herald's local APNs (the gateway) in this process, on a port the system picks,
/// with its own certificate authority and one trusted signing key. It checks every request as APNs does and answers
/// as APNs does; devices started from it (``startDevice(apps:)``) receive what it accepts.
///
/// Send with any HTTP/2 client: ``makeClient()`` gives Herald's, configured; for another, use ``url``, trust
/// ``caFile`` and sign provider tokens with ``keyFile`` (``keyID``, ``teamID``).
///
/// ```swift
/// try await LocalAPNs.run { apns in
///     let device = try await apns.startDevice(apps: [try AppManifest(data: Data(#"{"bundleID":"com.example.app"}"#.utf8))])
///     let client = try apns.makeClient()
///     ...
/// }
/// ```
public final class LocalAPNs: Sendable {
    /// The key ID provider tokens are signed with.
    public let keyID = "ABC123DEFG"
    /// The team ID provider tokens name.
    public let teamID = "DEF123GHIJ"
    /// The address to send to: `https://127.0.0.1:<port>`.
    public let url: String
    /// The port it listens on.
    public let port: Int
    /// Its certificate authority, to trust (PEM).
    public let caCertificatePEM: String
    /// The same, as a file (for curl's `--cacert` and other clients).
    public let caFile: URL
    /// The trusted signing key as an `.p8` file (PKCS#8 PEM, 0600), for clients that read one.
    public let keyFile: URL
    /// A signer for the trusted key.
    public let signer: APNSProviderTokenSigner
    /// The gateway itself, for Herald's own tests.
    package let server: GatewayServer
    /// The trusted key.
    package let key: P256.Signing.PrivateKey
    /// Where it keeps its data; removed by ``stop()``.
    let directory: URL

    private init(server: GatewayServer, port: Int, key: P256.Signing.PrivateKey, directory: URL) throws {
        self.key = key
        self.server = server
        self.port = port
        self.directory = directory
        url = "https://127.0.0.1:\(port)"
        caCertificatePEM = server.certificateAuthority.caCertificatePEM
        caFile = server.certificateAuthority.caPath
        keyFile = directory.appendingPathComponent("AuthKey_\(keyID).p8")
        let pem = key.pemRepresentation
        // Created 0600: the key is never readable by others, not even for a moment.
        try PrivateFile.write(Data(pem.utf8), to: keyFile)
        signer = try APNSProviderTokenSigner(privateKeyPEM: pem, keyID: keyID, teamID: teamID)
    }

    /// Starts one in a fresh temporary folder.
    ///
    /// - Throws: ``HeraldTestingError`` when it cannot listen or write its folder.
    public static func start() async throws -> LocalAPNs {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("local-apns-\(UUID().uuidString)")
        do {
            return try await start(directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw HeraldTestingError("the local APNs cannot start: \(error)")
        }
    }

    /// Starts one keeping its data in `directory` (a restart on the same folder finds what it stored), trusting
    /// `key`; `configure` changes the gateway's configuration first (Herald's own tests).
    package static func start(
        directory: URL, key: P256.Signing.PrivateKey = P256.Signing.PrivateKey(),
        configure: (inout GatewayServer.Configuration) -> Void = { _ in }
    ) async throws -> LocalAPNs {
        var verifier = APNSProviderTokenVerifier()
        try verifier.addKey(pem: key.publicKey.pemRepresentation, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        var configuration = GatewayServer.Configuration(dataDirectory: directory)
        configuration.port = 0
        configuration.managePort = 0
        // A test provokes refusals on purpose: they are answered, not printed.
        configuration.logger.logLevel = .warning
        configure(&configuration)
        let server = try GatewayServer(configuration: configuration, verifier: verifier)
        let port = try await server.start()
        do {
            return try LocalAPNs(server: server, port: port, key: key, directory: directory)
        } catch {
            // Listening already: a start that fails from here on must not leave the port held.
            try? await server.shutdown()
            throw error
        }
    }

    /// Starts one, runs `body` with it, and stops it whether `body` threw or not. `body` runs in the caller's
    /// isolation (a `@MainActor` test's closure may touch the main actor's state), as `withTaskGroup`'s does.
    public static func run<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (LocalAPNs) async throws -> T
    ) async throws -> T {
        let apns = try await start()
        do {
            let value = try await body(apns)
            try await apns.stop()
            return value
        } catch {
            try? await apns.stop()
            throw error
        }
    }

    /// Stops listening, closes every connection, and removes its folder.
    public func stop() async throws {
        try await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A configuration of Herald's client for this APNs: its address, its CA trusted, token authentication with the
    /// trusted key. Change what the test needs (limits, timeouts) before making the client.
    public func clientConfiguration() throws -> APNSPushClient.Configuration {
        APNSPushClient.Configuration(
            endpoint: try APNSEndpoint(url: url, additionalTrustRootsPEM: caCertificatePEM),
            authentication: .token(signer))
    }

    /// Herald's client for this APNs (``clientConfiguration()``); shut it down when done.
    public func makeClient() throws -> APNSPushClient {
        try APNSPushClient(configuration: clientConfiguration())
    }

    /// Answers the next `count` pushes (to `token` only, when given) with `status` and `reason` instead of accepting
    /// them, as APNs does when it is busy (`429 TooManyRequests`, `503 ServiceUnavailable`) or refuses.
    ///
    /// - Throws: ``HeraldTestingError`` for a status outside 400 to 599, a count below 1, or a token that is not hex.
    public func failNext(_ count: Int = 1, status: Int, reason: String, token: String? = nil) throws {
        guard (400...599).contains(status) else { throw HeraldTestingError("status \(status) is not 400 to 599") }
        guard count >= 1 else { throw HeraldTestingError("count \(count): fail at least one push") }
        let parsed: APNSDeviceToken?
        do {
            parsed = try token.map { text throws(APNSRequestRejection) in try APNSDeviceToken(hex: text) }
        } catch {
            throw HeraldTestingError("token: \(error.message)")
        }
        server.faults.add(
            .init(effect: .answer(status: status, reason: APNSReason(rawValue: reason)), count: count, token: parsed))
    }

    /// A device configuration for this APNs with `apps` installed, its data in a fresh temporary folder.
    package func deviceConfiguration(apps: [AppManifest]) -> SimulatedDevice.Configuration {
        SimulatedDevice.Configuration(
            gatewayHost: "127.0.0.1", gatewayPort: port, caPEM: caCertificatePEM, apps: apps,
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("device-\(UUID().uuidString)"))
    }

    /// Starts a simulated device with `apps` installed, connected and registered: each app has its token. Your own
    /// extensions run as iOS runs them: `serviceExtensions[bundleID]` makes the app's `UNNotificationServiceExtension`
    /// for every push with `mutable-content` (30 s to change it), `contentExtensions[bundleID]` its
    /// `UNNotificationContentExtension` when one of its notifications is expanded.
    ///
    /// - Throws: ``HeraldTestingError`` when the device cannot start (two manifests for one app, no connection).
    public func startDevice(
        apps: [AppManifest],
        serviceExtensions: [String: @Sendable () -> UNNotificationServiceExtension] = [:],
        contentExtensions: [String: @Sendable () -> any UNNotificationContentExtension] = [:]
    ) async throws -> TestDevice {
        var configuration = deviceConfiguration(apps: apps)
        configuration.serviceExtensions = serviceExtensions
        configuration.contentExtensions = contentExtensions
        return try await startDevice(configuration)
    }

    /// Starts a simulated device from a configuration (``deviceConfiguration(apps:)``, changed as the test needs).
    package func startDevice(_ configuration: SimulatedDevice.Configuration) async throws -> TestDevice {
        do {
            let device = try await SimulatedDevice.install(configuration)
            // The log listens before the device connects, so no event is missed.
            let testDevice = TestDevice(device)
            try await device.connect()
            return testDevice
        } catch {
            throw HeraldTestingError("the device cannot start: \(error.message)")
        }
    }
}
