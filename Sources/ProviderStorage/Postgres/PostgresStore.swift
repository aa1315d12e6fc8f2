package import Crypto
import Foundation
package import Logging
import PostgresNIO
import Synchronization

/// The shared store: PostgreSQL through PostgresNIO's connection pool. Several provider processes may use one
/// database at once; workers lease deliveries with `FOR UPDATE SKIP LOCKED`, so two processes never lease the same
/// delivery, and a dead process's leases return to the queue when they expire.
package final class PostgresStore: ProviderStore {
    let client: PostgresClient
    package let logger: Logger
    package let messageKey: MessageKey
    private let running: Task<Void, Never>
    /// One connection's settings, for the connection that listens for other providers' work (``workAnnouncements()``).
    let listenerConfiguration: PostgresConnection.Configuration
    /// The channel providers on this database and schema announce work on.
    let workChannel: String
    /// Answers this process recorded since it last vacuumed the delivery queue (``vacuumQueueIfDue()``).
    let answeredSinceQueueVacuum = Mutex(0)
    package let observation = StoreObservation()
    package let receiptWriters: Int

    /// Connects to the database `url` names (see ``PostgresDatabaseURL``) and brings its tables up to date.
    ///
    /// - Throws: ``ProviderError`` when the URL is wrong or the database cannot be reached or migrated.
    package init(url: String, logger: Logger, messageKey: SymmetricKey) async throws(ProviderError) {
        self.messageKey = MessageKey(messageKey)
        let parsed = try PostgresDatabaseURL(url)
        // The pool retries a refused connection for a minute; one connection first reports a wrong address,
        // password or database name at once, and brings the tables up to date before the pool starts.
        do {
            let connection = try await PostgresConnection.connect(configuration: parsed.probe, id: 0, logger: logger)
            do {
                try await Self.migrate(connection, schema: parsed.schema, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
        } catch {
            let (cause, next) = PostgresStartupFailure.explain(error, url: parsed.redacted, address: parsed.address)
            throw .configuration("\(cause); \(next)")
        }
        let client = PostgresClient(configuration: parsed.configuration, backgroundLogger: logger)
        receiptWriters = parsed.configuration.options.maximumConnections >= 8 ? 2 : 1
        self.client = client
        listenerConfiguration = parsed.probe
        workChannel = "herald_work_" + (parsed.schema ?? "public")
        self.logger = logger
        running = Task { await client.run() }
    }

    package func close() async {
        running.cancel()
        await running.value
    }

    /// How long a statement waits for a connection from the pool. While the database is down or restarting the
    /// pool has none to give; past this the statement fails (the API answers `503` with `Retry-After`) instead of
    /// hanging.
    package static let connectionWait: Duration = .seconds(3)

    /// How long a statement may take in all, unless it says otherwise: past this it fails and its connection is
    /// closed (``BoundedStatement``), so that a statement whose answer never comes (sent as the database restarted,
    /// or over a cut network) cannot hold its caller forever.
    package static let statementLimit: Duration = .seconds(60)

    /// The limit of the delivery queue's statements (lease, record, extend, reclaim, heartbeat): each takes
    /// milliseconds, and one that hangs holds a batch whose leases run out in ``ProviderConfiguration/leaseDuration``.
    package static let queueStatementLimit: Duration = .seconds(10)

    /// The limit of a statement that writes a whole broadcast (a million deliveries) or analyzes the table after it.
    package static let bulkStatementLimit: Duration = .seconds(600)

    /// Runs one statement and returns its rows.
    @discardableResult
    func rows(_ query: PostgresQuery, within limit: Duration = statementLimit, function: String = #function)
        async throws(ProviderError) -> [PostgresRow]
    {
        let logger = self.logger
        return try await withConnection(within: limit, function: function) { connection in
            try await connection.query(query, logger: logger).collect()
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T: Sendable>(
        within limit: Duration = statementLimit, function: String = #function,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(ProviderError) -> T {
        let logger = self.logger
        return try await withConnection(within: limit, function: function) { connection in
            try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// Runs `body` on a connection from the pool, failing with ``ProviderError/storage(_:)`` when none is given
    /// within ``connectionWait`` or `body` has not returned within `limit`. The time it took is reported as the work
    /// of the store method named `function` (``StoreObservation``).
    private func withConnection<T: Sendable>(
        within limit: Duration, function: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(ProviderError) -> T {
        let (client, observation) = (self.client, self.observation)
        return try await observation.measure(function) { () async throws(ProviderError) -> T in
            do {
                return try await BoundedStatement.run(
                    on: client, connectionWait: Self.connectionWait, limit: limit,
                    connected: { observation.connectionWaited($0) }, body)
            } catch {
                throw Self.failure(error)
            }
        }
    }

    /// The count a `WITH changed AS (... RETURNING 1) SELECT count(*) FROM changed` statement answers.
    func count(_ query: PostgresQuery, within limit: Duration = statementLimit, function: String = #function)
        async throws(ProviderError) -> Int
    {
        let rows = try await rows(query, within: limit, function: function)
        do {
            return try rows.first?.decode(Int.self) ?? 0
        } catch {
            throw Self.failure(error)
        }
    }

    private static func migrate(_ connection: PostgresConnection, schema: String?, logger: Logger) async throws {
        _ = try await connection.withTransaction(logger: logger) { connection in
            // One migrating process per schema at a time; the lock ends with the transaction.
            try await connection.rows("SELECT pg_advisory_xact_lock(hashtext(\(schema ?? "public")))", logger)
            if let schema {
                try await connection.rows(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger)
            }
            try await connection.rows(
                "CREATE TABLE IF NOT EXISTS herald_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL)",
                logger)
            let applied = Set(
                try await connection.rows("SELECT name FROM herald_migrations", logger).map {
                    try $0.decode(String.self)
                })
            for migration in PostgresSchema.migrations where !applied.contains(migration.name) {
                for statement in migration.statements {
                    try await connection.rows(PostgresQuery(unsafeSQL: statement), logger)
                }
                try await connection.rows(
                    "INSERT INTO herald_migrations (name, applied_at) VALUES (\(migration.name), \(Date()))", logger)
            }
        }
    }

    package static func failure(_ error: any Error) -> ProviderError {
        if let error = error as? ProviderError { return error }
        // A transaction's failure is judged by what failed in it (a statement, or the body's own ProviderError).
        if let error = error as? PostgresTransactionError,
            let cause = error.closureError ?? error.commitError ?? error.beginError
        {
            return failure(cause)
        }
        if let error = error as? PSQLError {
            // 22021 and 22P05: a text PostgreSQL cannot store (U+0000). The input is at fault, and trying again
            // cannot help: 400, not the 503 of a database that failed.
            if let state = error.serverInfo?[.sqlState], state == "22021" || state == "22P05" {
                return .invalid(
                    field: nil,
                    message: "a text in the request contains the NUL character (U+0000), which the database "
                        + "cannot store; remove it")
            }
            let message = error.serverInfo?[.message] ?? error.underlying.map { "\($0)" } ?? "\(error.code)"
            return .storage("PostgreSQL: \(message)")
        }
        return .storage("PostgreSQL: \(error)")
    }
}

extension PostgresConnection {
    /// Runs one statement in this connection's transaction and returns its rows.
    @discardableResult
    func rows(_ query: PostgresQuery, _ logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }
}

extension PostgresRandomAccessRow {
    /// The value of the column `name`; an error, not PostgresNIO's trap, when the query did not select it.
    func column<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard contains(name) else { throw MissingColumn(name: name) }
        return try self[name].decode(T.self)
    }
}

/// A row read for a column its query did not select: a bug in Herald's SQL, answered as a storage error.
package struct MissingColumn: Error, CustomStringConvertible {
    package let name: String
    package var description: String { "the query did not select the column \(name)" }
}
