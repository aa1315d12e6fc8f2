import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://user:password@host:port/database?sslmode=...&schema=...` URL, read as libpq reads it.
///
/// - `sslmode`: `disable`, `prefer` (the default: TLS when the server offers it, certificate not checked), `require`
///   (TLS, certificate not checked) or `verify-full` (TLS with the system's trusted certificates and the host name).
/// - `host=/var/run/postgresql` connects through the Unix socket in that directory.
/// - `schema`: the tables go into this schema (created when missing) instead of `public`, so several Herald
///   deployments (or test runs) can share one database.
/// - `pool_max_conns`: how many connections this process keeps open at most (1 to 1,000; default 20), as pgx names it:
///   the sum over every process on one database must stay under the server's `max_connections`.
package struct PostgresDatabaseURL: Sendable {
    /// The pool's configuration.
    var configuration: PostgresClient.Configuration
    /// The same settings for one connection, made at start to report a wrong address or password at once.
    var probe: PostgresConnection.Configuration
    /// The schema the tables live in, when not `public`.
    package var schema: String?
    /// The URL without its password, for messages.
    package var redacted: String
    /// Where the database listens (`host:port`, or the Unix socket's path), for messages.
    package var address = ""

    /// Reads `text`.
    ///
    /// - Throws: ``ProviderError/configuration(_:)`` saying what part is wrong.
    package init(_ text: String) throws(ProviderError) {
        guard let components = URLComponents(string: text),
            components.scheme == "postgres" || components.scheme == "postgresql"
        else {
            throw .configuration(
                "--database \"\(text)\" is not a PostgreSQL URL; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let known: Set = ["sslmode", "host", "schema", "pool_max_conns"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw .configuration(
                "the database URL's \"\(unknown)\" parameter is not known; use sslmode, host, schema or pool_max_conns")
        }
        let user = components.user ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        let password = components.password
        let database = components.path.isEmpty ? nil : String(components.path.dropFirst())
        let port = components.port ?? 5432
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            let path = "\(socketDirectory)/.s.PGSQL.\(port)"
            address = path
            configuration = .init(unixSocketPath: path, username: user, password: password, database: database)
            probe = .init(unixSocketPath: path, username: user, password: password, database: database)
        } else {
            let host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
            let (tls, probeTLS) = try Self.tls(query["sslmode"] ?? "prefer")
            address = "\(host):\(port)"
            configuration = .init(
                host: host, port: port, username: user, password: password, database: database, tls: tls)
            probe = .init(host: host, port: port, username: user, password: password, database: database, tls: probeTLS)
        }
        if let schema = query["schema"] {
            guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw .configuration(
                    "the database URL's schema \"\(schema)\" must be lower-case letters, digits and _ (at most 63)")
            }
            self.schema = schema
            configuration.options.additionalStartupParameters = [("search_path", schema)]
            probe.options.additionalStartupParameters = [("search_path", schema)]
        }
        if let pool = query["pool_max_conns"] {
            guard let count = Int(pool), Self.poolSizes.contains(count) else {
                throw .configuration(
                    "the database URL's pool_max_conns \"\(pool)\" must be a whole number from 1 to 1000")
            }
            configuration.options.maximumConnections = count
        }
        var shown = components
        if shown.password != nil { shown.password = "***" }
        redacted = shown.string ?? "postgres://"
    }

    /// The pool sizes `pool_max_conns` accepts.
    package static let poolSizes = 1...1000

    private static func tls(_ mode: String) throws(ProviderError) -> (
        PostgresClient.Configuration.TLS, PostgresConnection.Configuration.TLS
    ) {
        var unchecked = TLSConfiguration.makeClientConfiguration()
        unchecked.certificateVerification = .none
        do {
            switch mode {
            case "disable": return (.disable, .disable)
            case "prefer", "allow": return (.prefer(unchecked), .prefer(try NIOSSLContext(configuration: unchecked)))
            case "require": return (.require(unchecked), .require(try NIOSSLContext(configuration: unchecked)))
            case "verify-full":
                let checked = TLSConfiguration.makeClientConfiguration()
                return (.require(checked), .require(try NIOSSLContext(configuration: checked)))
            default:
                throw ProviderError.configuration(
                    "the database URL's sslmode \"\(mode)\" is not known; use disable, prefer, require or verify-full")
            }
        } catch let error as ProviderError {
            throw error
        } catch {
            throw .configuration("cannot set up TLS for the database: \(error)")
        }
    }
}
