import Foundation
import Logging
import PostgresNIO

/// The shared store: PostgreSQL through PostgresNIO's connection pool. Several provider processes may use one
/// database at once; workers lease deliveries with `FOR UPDATE SKIP LOCKED`, so two processes never lease the same
/// delivery, and a dead process's leases return to the queue when they expire.
final class PostgresStore: ProviderStore {
    let client: PostgresClient
    let logger: Logger
    private let running: Task<Void, Never>

    /// Connects to the database `url` names (see ``PostgresDatabaseURL``) and brings its tables up to date.
    ///
    /// - Throws: ``ProviderError`` when the URL is wrong or the database cannot be reached or migrated.
    init(url: String, logger: Logger) async throws(ProviderError) {
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
            throw .storage("cannot use the database \(parsed.redacted): \(Self.failure(error))")
        }
        let client = PostgresClient(configuration: parsed.configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        running = Task { await client.run() }
    }

    func close() async {
        running.cancel()
        await running.value
    }

    /// Runs one statement and returns its rows.
    @discardableResult
    func rows(_ query: PostgresQuery) async throws(ProviderError) -> [PostgresRow] {
        do {
            return try await client.query(query, logger: logger).collect()
        } catch {
            throw Self.failure(error)
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws(ProviderError) -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch {
            throw Self.failure(error)
        }
    }

    /// The count a `WITH changed AS (... RETURNING 1) SELECT count(*) FROM changed` statement answers.
    func count(_ query: PostgresQuery) async throws(ProviderError) -> Int {
        let rows = try await rows(query)
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

    static func failure(_ error: any Error) -> ProviderError {
        if let error = error as? ProviderError { return error }
        if let error = error as? PSQLError {
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
    /// The value of the column `name`.
    func column<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try self[name].decode(T.self)
    }
}
