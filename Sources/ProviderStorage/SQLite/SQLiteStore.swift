import APNSCore
package import Crypto
package import Foundation
import GRDB
import HeraldSupport

/// The embedded store: one SQLite file in WAL mode through GRDB. One provider process per file; several processes
/// share a queue only through PostgreSQL.
package final class SQLiteStore: ProviderStore {
    let pool: DatabasePool
    package let messageKey: MessageKey
    package let observation = StoreObservation()
    /// One: SQLite writes take turns.
    package let receiptWriters = 1

    /// Opens (or creates) the database at `path` and brings its tables up to date; `messageKey` makes the deliveries'
    /// `apns-id`s (``DeliveryMessageID``).
    ///
    /// - Throws: ``ProviderError`` when the file cannot be opened.
    package init(path: String, messageKey: SymmetricKey) throws(ProviderError) {
        self.messageKey = MessageKey(messageKey)
        do {
            try PrivateFile.makeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent())
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.prepareDatabase { db in
                // WAL with NORMAL sync survives a killed process; only a power loss can drop the last commits.
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                try db.execute(sql: "PRAGMA foreign_keys = ON")
                CompactText.register(in: db)
                // The writer checkpoints every 32,768 pages (128 MB of WAL; SQLite's default is 1,000): at the default
                // a bulk import sat in fsync more than half the time. Its page cache stays at SQLite's 2 MB: 64 MB made
                // an import of a million devices about 10 % faster but every broadcast's provider 90 MB larger
                // (1,000,000 devices: peak 203 MB against 112 MB).
                if !db.configuration.readonly {
                    try db.execute(sql: "PRAGMA wal_autocheckpoint = 32768")
                } else {
                    try db.execute(sql: "PRAGMA cache_size = -512")
                }
            }
            pool = try DatabasePool(path: path, configuration: configuration)
            // Apps' sealed credentials and users' devices: only the provider's owner may read them.
            for suffix in ["", "-wal", "-shm"] { PrivateFile.restrict(URL(fileURLWithPath: path + suffix)) }
            try SQLiteSchema.migrator.migrate(pool)
            // One process per file: a lease still held at start belongs to a process that died (kill -9, power
            // loss). Its deliveries go back to the queue now rather than when the lease runs out.
            try pool.write { db in
                try db.execute(
                    sql: """
                        UPDATE deliveries SET state = \(DeliveryState.queued.sql), lease_owner = NULL, lease_until = NULL
                        WHERE state = \(DeliveryState.leased.sql)
                        """)
            }
        } catch {
            throw .storage("cannot open the database \(path): \(error)")
        }
    }

    package func close() async {
        try? pool.close()
    }

    /// Runs `body` in a write transaction.
    func write<T: Sendable>(function: String = #function, _ body: @escaping @Sendable (Database) throws -> T)
        async throws(ProviderError) -> T
    {
        try await access("write", function: function) { try await pool.write(body) }
    }

    /// Runs `body` on a read snapshot.
    func read<T: Sendable>(function: String = #function, _ body: @escaping @Sendable (Database) throws -> T)
        async throws(ProviderError) -> T
    {
        try await access("read", function: function) { try await pool.read(body) }
    }

    /// One use of the database (`kind` is `read` or `write`), timed as the work of the store method `function`; a
    /// failure that is not already a ``ProviderError`` is a storage error naming it.
    private func access<T: Sendable>(_ kind: String, function: String, _ body: () async throws -> T)
        async throws(ProviderError) -> T
    {
        try await observation.measure(function) { () async throws(ProviderError) -> T in
            do {
                return try await body()
            } catch let error as ProviderError {
                throw error
            } catch {
                throw .storage("database \(kind) failed: \(error)")
            }
        }
    }
}

extension Date {
    /// Seconds since 1970, as the tables keep times.
    package var stored: Double { timeIntervalSince1970 }

    package init(stored: Double) { self.init(timeIntervalSince1970: stored) }
}
