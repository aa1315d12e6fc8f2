package import Foundation
import GRDB

/// One process uses a SQLite file: what several providers share is its own.
extension SQLiteStore {
    package func sharedSetting(_ name: String, proposing proposed: Data) async throws(ProviderError) -> Data {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO provider_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                arguments: [name, proposed])
            return try Data.fetchOne(db, sql: "SELECT value FROM provider_settings WHERE name = ?", arguments: [name])
                ?? proposed
        }
    }

    package func exportsSharedGauges(owner: String, staleAfter: TimeInterval) async throws(ProviderError) -> Bool {
        true
    }
}

extension SQLiteStore {
    package func announceWork() async {}

    package func workAnnouncements() -> AsyncStream<Void> { AsyncStream { $0.finish() } }

    package func liveProviders(staleAfter: TimeInterval) async throws(ProviderError) -> Int { 1 }
}
