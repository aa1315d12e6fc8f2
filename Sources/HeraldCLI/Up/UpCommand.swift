import APNSCore
import ArgumentParser
import Foundation

/// `herald up`: the whole system on embedded defaults in one process.
struct UpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Run the whole system: a local APNs, the provider on SQLite and a simulated device with the demo app."
    )

    @Option(help: "Where everything is kept (gateway/, provider/, device/, the development signing key).")
    var data = "./.herald/up"

    @Option(
        help: """
            The address the local APNs and the provider API listen on: 127.0.0.1 (this machine only) or 0.0.0.0 \
            (every interface; both still need their tokens). The device's API stays on 127.0.0.1.
            """)
    var host = "127.0.0.1"

    @Option(name: .customLong("gateway-port"), help: "The local APNs' port.")
    var gatewayPort = 2197

    @Option(name: .customLong("manage-port"), help: "The local APNs' channel management port (broadcast channels).")
    var managePort = 2195

    @Option(name: .customLong("provider-port"), help: "The provider API's port.")
    var providerPort = 8080

    @Option(
        name: [.customLong("device-api-port"), .customLong("api-port")], help: "The simulated device's JSON API port.")
    var deviceAPIPort = 2198

    @Option(
        name: .customLong("allow-attachment-host"),
        help: "A host (or host:port) on a loopback or private address the device may download media from. Repeatable.")
    var allowedAttachmentHosts: [String] = []

    @OptionGroup var logging: LoggingOptions
    @OptionGroup var traces: TraceOptions

    func validate() throws {
        guard ["127.0.0.1", "0.0.0.0", "localhost", "::1", "::"].contains(host) else {
            throw ValidationError(
                "--host is 127.0.0.1 (this machine) or 0.0.0.0 (every interface); the gateway's certificate names "
                    + "only loopback addresses, so another address would fail TLS. Got '\(host)'")
        }
    }

    func run() async throws {
        let root = URL(fileURLWithPath: data)
        let lock = try DataFolderLock(root, command: "herald up")
        // Every port at once, before a key or token is made: a second herald up is told all it collides on.
        if let failure = PortCheck.unavailable([
            .init(what: "the local APNs", host: host, port: gatewayPort, option: "--gateway-port"),
            .init(what: "the channel management API", host: host, port: managePort, option: "--manage-port"),
            .init(what: "the provider API and console", host: host, port: providerPort, option: "--provider-port"),
            .init(
                what: "the simulated device's API", host: "127.0.0.1", port: deviceAPIPort, option: "--device-api-port"),
        ]) {
            lock.discardIfNew()
            throw failure
        }
        let system: UpSystem
        do {
            system = try await UpSystem.start(self, root: root)
        } catch {
            lock.discardIfNew()
            throw error
        }
        defer { withExtendedLifetime(lock) {} }
        do {
            try await CommandServices.run(
                try system.services(), logger: logging.logger("herald"), shutdown: system.shutdown)
        } catch {
            lock.discardIfNew()
            // The gateway listens already and the device's API names its own failure: what cannot bind is the API.
            throw CommandFailure.listening(
                error, what: "the provider API", host: host, port: providerPort, option: "--provider-port") ?? error
        }
    }

    /// The `NotificationConfig` object of an app manifest, as JSON.
    static func notificationConfig(of manifest: String) -> Data? {
        (try? JSONValue(parsing: Data(manifest.utf8)))?["NotificationConfig"]?.encoded()
    }
}
