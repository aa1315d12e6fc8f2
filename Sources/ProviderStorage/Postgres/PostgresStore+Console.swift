package import Foundation
import PostgresNIO

extension PostgresStore {
    package func openConsoleSession(_ session: StoredConsoleSession, limits: ConsoleSessionLimits, now: Date)
        async throws(ProviderError) -> Bool
    {
        try await transaction { [logger] connection in
            // One sign-in at a time per database: the counts below are not raced by another provider's.
            try await connection.rows("SELECT pg_advisory_xact_lock(hashtext('herald console sessions'))", logger)
            try await connection.rows("DELETE FROM console_sessions WHERE expires_at <= \(now)", logger)
            let sameKey =
                try await connection.rows(
                    "SELECT count(*) FROM console_sessions WHERE key_hash = \(session.keyHash)", logger
                ).first?.decode(Int.self) ?? 0
            if sameKey >= limits.perKey {
                try await connection.rows(
                    """
                    DELETE FROM console_sessions WHERE id_hash IN (
                        SELECT id_hash FROM console_sessions WHERE key_hash = \(session.keyHash)
                        ORDER BY expires_at LIMIT \(sameKey - limits.perKey + 1))
                    """, logger)
            }
            let counts =
                try await connection.rows(
                    """
                    SELECT count(*) FILTER (WHERE address = \(session.address)), count(*) FROM console_sessions
                    """, logger
                ).first?.decode((Int, Int).self) ?? (0, 0)
            guard counts.0 < limits.perAddress, counts.1 < limits.capacity else { return false }
            try await connection.rows(
                """
                INSERT INTO console_sessions (id_hash, csrf_token, sealed_key, key_hash, holder_app, address, expires_at)
                VALUES (\(session.idHash), \(session.csrfToken), \(session.sealedKey), \(session.keyHash),
                    \(session.holderAppID), \(session.address), \(session.expiresAt))
                """, logger)
            return true
        }
    }

    package func consoleSession(idHash: String, now: Date) async throws(ProviderError) -> StoredConsoleSession? {
        let found = try await rows(
            """
            SELECT csrf_token, sealed_key, key_hash, holder_app, address, expires_at FROM console_sessions
            WHERE id_hash = \(idHash) AND expires_at > \(now)
            """)
        do {
            return try found.first.map { row in
                let (csrf, sealed, keyHash, holder, address, expires) = try row.decode(
                    (String, String, String, String?, String, Date).self)
                return StoredConsoleSession(
                    idHash: idHash, csrfToken: csrf, sealedKey: sealed, keyHash: keyHash, holderAppID: holder,
                    address: address, expiresAt: expires)
            }
        } catch {
            throw Self.failure(error)
        }
    }

    package func extendConsoleSession(idHash: String, until: Date) async throws(ProviderError) {
        try await rows("UPDATE console_sessions SET expires_at = \(until) WHERE id_hash = \(idHash)")
    }

    package func closeConsoleSession(idHash: String) async throws(ProviderError) {
        try await rows("DELETE FROM console_sessions WHERE id_hash = \(idHash)")
    }

    package func addConsoleLoginCode(codeHash: String, sealedKey: String, expiresAt: Date, now: Date)
        async throws(ProviderError)
    {
        try await transaction { [logger] connection in
            try await connection.rows("DELETE FROM console_login_codes WHERE expires_at <= \(now)", logger)
            try await connection.rows(
                """
                INSERT INTO console_login_codes (code_hash, sealed_key, expires_at)
                VALUES (\(codeHash), \(sealedKey), \(expiresAt))
                """, logger)
        }
    }

    package func redeemConsoleLoginCode(codeHash: String, now: Date) async throws(ProviderError) -> String? {
        let found = try await rows(
            "DELETE FROM console_login_codes WHERE code_hash = \(codeHash) RETURNING sealed_key, expires_at")
        do {
            guard let (sealed, expires) = try found.first?.decode((String, Date).self), expires > now else {
                return nil
            }
            return sealed
        } catch {
            throw Self.failure(error)
        }
    }

    package func recordConsoleSignInFailure(address: String, at: Date) async throws(ProviderError) {
        try await rows("INSERT INTO console_sign_in_failures (address, at) VALUES (\(address), \(at))")
    }

    package func consoleSignInFailures(address: String, since: Date) async throws(ProviderError) -> [Date] {
        let found = try await transaction { [logger] connection in
            try await connection.rows("DELETE FROM console_sign_in_failures WHERE at <= \(since)", logger)
            return try await connection.rows(
                "SELECT at FROM console_sign_in_failures WHERE address = \(address) ORDER BY at", logger
            ).map { try $0.decode(Date.self) }
        }
        return found
    }
}
