import Crypto
import Foundation
import HeraldSupport
import Logging
import PostgresNIO
import Synchronization
import TestPacing
import Testing

@testable import ProviderStorage
@testable import PushProvider

/// Several providers on one PostgreSQL database are one service: one admin token, and the shared queue's gauges
/// exported by one of them.
@Suite(
    "Several providers on one database act as one service", .startsServers,
    .enabled(if: ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] != nil))
struct SharedServiceTests {
    let database: PushProviderService.Database = {
        let url = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES"] ?? ""
        let schema = "shared_" + UUID().uuidString.prefix(8).lowercased()
        return .postgres(url: url + (url.contains("?") ? "&" : "?") + "schema=" + schema)
    }()

    func configuration(masterKey: Data) -> PushProviderService.Configuration {
        var configuration = PushProviderService.Configuration(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID())"))
        configuration.database = database
        configuration.masterKey = masterKey
        configuration.port = 0
        return configuration
    }

    /// Drops the test's schema (runs left hundreds behind) and closes the providers' stores.
    func close(_ providers: [PushProviderService]) async {
        if case .postgres(let url) = database, let store = providers.first?.store as? PostgresStore {
            let schema = url.components(separatedBy: "schema=").last ?? ""
            _ = try? await store.rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
        }
        for provider in providers { await provider.store.close() }
    }

    @Test("a second provider in another folder takes the first one's admin token; another master key is refused")
    func oneAdminToken() async throws {
        let masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        var logger = Logger(label: "shared")
        logger.logLevel = .critical
        let first = try await PushProviderService(configuration: configuration(masterKey: masterKey), logger: logger)
        let second = try await PushProviderService(configuration: configuration(masterKey: masterKey), logger: logger)
        #expect(first.adminTokenCreated && !second.adminTokenCreated)
        #expect(first.adminToken == second.adminToken)
        let written = try String(contentsOf: second.adminTokenPath, encoding: .utf8)
        #expect(written == first.adminToken, "the second folder's admin-token is the service's")
        #expect(second.isAdminToken(first.adminToken))

        let other = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        await #expect(throws: ProviderError.self) {
            _ = try await PushProviderService(configuration: configuration(masterKey: other), logger: logger)
        }
        do {
            _ = try await PushProviderService(configuration: configuration(masterKey: other), logger: logger)
        } catch {
            #expect(error.cause?.contains("master key") == true && error.cause?.contains("copy") == true, "\(error)")
        }
        await close([first, second])
    }

    @Test("of two live providers exactly one exports the shared queue's gauges")
    func gaugesOnce() async throws {
        let masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        var logger = Logger(label: "shared")
        logger.logLevel = .critical
        let providers = [
            try await PushProviderService(configuration: configuration(masterKey: masterKey), logger: logger),
            try await PushProviderService(configuration: configuration(masterKey: masterKey), logger: logger),
        ]
        for provider in providers {
            _ = try await provider.store.heartbeat(owner: provider.engine.owner, staleAfter: 5)
        }
        var exporting = 0
        for provider in providers
        where try await provider.store.exportsSharedGauges(owner: provider.engine.owner, staleAfter: 5) {
            exporting += 1
        }
        #expect(exporting == 1)
        await close(providers)
    }

    @Test("two live providers keep a publishable-key limit together: each allows half, the service the whole")
    func publicLimitsAreTheService() async throws {
        let masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        var logger = Logger(label: "shared")
        logger.logLevel = .critical
        var limited = configuration(masterKey: masterKey)
        limited.publicLimits.registrationsPerAddress = .init(perMinute: 4)
        let providers = [
            try await PushProviderService(configuration: limited, logger: logger),
            try await PushProviderService(configuration: limited, logger: logger),
        ]
        for provider in providers {
            _ = try await provider.store.heartbeat(owner: provider.engine.owner, staleAfter: 5)
        }
        // What each one's heartbeat loop reads every few seconds.
        for provider in providers {
            provider.engine.liveProviders.store(
                try await provider.store.liveProviders(staleAfter: 5), ordering: .relaxed)
        }
        var allowed = 0
        var refusal: String?
        for _ in 0..<4 {
            for provider in providers {
                if let refused = provider.publicLimits.refusal(.registration, address: "203.0.113.7") {
                    refusal = refused.error.description
                } else {
                    allowed += 1
                }
            }
        }
        #expect(allowed == 4, "4 a minute for the service, not 4 for each of 2 providers")
        #expect(refusal?.contains("across 2 providers") == true, "\(refusal ?? "")")
        await close(providers)
    }
}
