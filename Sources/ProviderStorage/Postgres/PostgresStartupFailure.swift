import PostgresNIO

/// Why the provider could not start on its PostgreSQL database, in the words an operator acts on: the database's own
/// sentence first, then what to change (the URL, the server, the role). Startup only: a running provider's failures
/// are ``PostgresStore/failure(_:)``'s.
enum PostgresStartupFailure {
    /// The cause and the fix for `error`, met connecting to `url` (redacted) at `address`.
    static func explain(_ error: any Error, url: String, address: String) -> (cause: String, next: String) {
        if let error = error as? PSQLError, let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState] ?? ""
            let cause = "PostgreSQL at \(address) answered: \(message) (SQLSTATE \(state))"
            switch state {
            case "28P01":
                return (
                    cause,
                    "check the password in the URL; a '@', ':', '/' or '%' in it is written %40, %3A, %2F or %25"
                )
            case "3D000":
                return (
                    cause, "create the database (docs/production.md: the role and the database) or fix the URL's path"
                )
            case "28000":
                return (
                    cause, "create the role, or allow it in pg_hba.conf (docs/production.md: the role and the database)"
                )
            case "42501":
                return (cause, "grant the role what the provider needs on its schema (docs/production.md)")
            default:
                return (cause, "fix what PostgreSQL names, then start again")
            }
        }
        // PSQLError describes itself generically (to keep data out of logs); the connection's error is underneath.
        let text = (error as? PSQLError)?.underlying.map { "\($0)" } ?? "\(error)"
        if text.contains("Connection refused") {
            return (
                "nothing listens at \(address) (connection refused)",
                "start PostgreSQL, or fix the host and port in the URL \(url)"
            )
        }
        if text.contains("UnknownHost") || text.contains("Name or service not known") {
            return ("the host of \(address) cannot be found (DNS)", "fix the host in the URL \(url)")
        }
        if text.contains("timed out") || text.contains("Timeout") || text.contains("timeout") {
            return ("\(address) did not answer in time", "check that the host is reachable from here (a firewall?)")
        }
        if text.contains("SSL") || text.contains("TLS") || text.contains("ssl") {
            return (
                "the TLS handshake with \(address) failed: \(text)",
                "match the URL's sslmode to the server (sslmode=disable for a server without TLS)"
            )
        }
        return ("cannot use the database \(url): \(text)", "fix what the error names, then start again")
    }
}
