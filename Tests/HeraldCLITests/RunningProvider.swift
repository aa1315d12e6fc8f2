import Foundation
import Logging
import PushProvider
import TestPacing

/// A provider on a free port for a CLI test: its folder, its API's URL and the flags that reach it from `herald`.
struct RunningProvider {
    let provider: PushProviderService
    let folder: URL
    let base: String

    /// `--provider URL --provider-token-file FILE`: what a command needs to reach this provider.
    var flags: [String] { ["--provider", base, "--provider-token-file", provider.adminTokenPath.path] }

    /// Starts a provider in a fresh folder (changed by `configure` first), runs `body` with it, then stops it and
    /// removes the folder, whether `body` threw or not.
    static func with(
        configure: (inout PushProviderService.Configuration) -> Void = { _ in },
        _ body: (RunningProvider) async throws -> Void
    ) async throws {
        ServerSlots.requireSlot("a provider")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-cli-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = PushProviderService.Configuration(dataDirectory: folder)
        configuration.port = 0
        configure(&configuration)
        var logger = Logger(label: "herald-cli-test")
        logger.logLevel = .critical
        let provider = try await PushProviderService(configuration: configuration, logger: logger)
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let service = Task { try await provider.run { port in portSink.yield(port) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            _ = await service.result
            throw DidNotListen()
        }
        let result: Result<Void, any Error>
        do {
            try await body(RunningProvider(provider: provider, folder: folder, base: "http://127.0.0.1:\(port)"))
            result = .success(())
        } catch {
            result = .failure(error)
        }
        service.cancel()
        _ = await service.result
        try result.get()
    }
}

/// The test's provider stopped before it listened.
struct DidNotListen: Error {}
