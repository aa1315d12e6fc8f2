package import Foundation
import GRDB

extension SQLiteStore {
    package func openConsoleSession(_ session: StoredConsoleSession, limits: ConsoleSessionLimits, now: Date)
        async throws(ProviderError) -> Bool
    {
        try await write { db in
            try db.execute(sql: "DELETE FROM console_sessions WHERE expires_at <= ?", arguments: [now.stored])
            let sameKey =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM console_sessions WHERE key_hash = ?", arguments: [session.keyHash])
                ?? 0
            if sameKey >= limits.perKey {
                try db.execute(
                    sql: """
                        DELETE FROM console_sessions WHERE id_hash IN (
                            SELECT id_hash FROM console_sessions WHERE key_hash = ? ORDER BY expires_at LIMIT ?)
                        """, arguments: [session.keyHash, sameKey - limits.perKey + 1])
            }
            let fromAddress =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM console_sessions WHERE address = ?", arguments: [session.address])
                ?? 0
            let all = try Int.fetchOne(db, sql: "SELECT count(*) FROM console_sessions") ?? 0
            guard fromAddress < limits.perAddress, all < limits.capacity else { return false }
            try db.execute(
                sql: """
                    INSERT INTO console_sessions (id_hash, csrf_token, sealed_key, key_hash, holder_app, address, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    session.idHash, session.csrfToken, session.sealedKey, session.keyHash, session.holderAppID,
                    session.address, session.expiresAt.stored,
                ])
            return true
        }
    }

    package func consoleSession(idHash: String, now: Date) async throws(ProviderError) -> StoredConsoleSession? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM console_sessions WHERE id_hash = ? AND expires_at > ?",
                arguments: [idHash, now.stored]
            ).map { row in
                StoredConsoleSession(
                    idHash: row["id_hash"], csrfToken: row["csrf_token"], sealedKey: row["sealed_key"],
                    keyHash: row["key_hash"], holderAppID: row["holder_app"], address: row["address"],
                    expiresAt: Date(stored: row["expires_at"]))
            }
        }
    }

    package func extendConsoleSession(idHash: String, until: Date) async throws(ProviderError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE console_sessions SET expires_at = ? WHERE id_hash = ?", arguments: [until.stored, idHash])
        }
    }

    package func closeConsoleSession(idHash: String) async throws(ProviderError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM console_sessions WHERE id_hash = ?", arguments: [idHash])
        }
    }

    package func addConsoleLoginCode(codeHash: String, sealedKey: String, expiresAt: Date, now: Date)
        async throws(ProviderError)
    {
        try await write { db in
            try db.execute(sql: "DELETE FROM console_login_codes WHERE expires_at <= ?", arguments: [now.stored])
            try db.execute(
                sql: "INSERT INTO console_login_codes (code_hash, sealed_key, expires_at) VALUES (?, ?, ?)",
                arguments: [codeHash, sealedKey, expiresAt.stored])
        }
    }

    package func redeemConsoleLoginCode(codeHash: String, now: Date) async throws(ProviderError) -> String? {
        try await write { db in
            try Row.fetchOne(
                db, sql: "DELETE FROM console_login_codes WHERE code_hash = ? RETURNING sealed_key, expires_at",
                arguments: [codeHash]
            ).flatMap { row in Date(stored: row["expires_at"]) > now ? row["sealed_key"] : nil }
        }
    }

    package func recordConsoleSignInFailure(address: String, at: Date) async throws(ProviderError) {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO console_sign_in_failures (address, at) VALUES (?, ?)",
                arguments: [address, at.stored])
        }
    }

    package func consoleSignInFailures(address: String, since: Date) async throws(ProviderError) -> [Date] {
        try await write { db in
            try db.execute(sql: "DELETE FROM console_sign_in_failures WHERE at <= ?", arguments: [since.stored])
            return try Double.fetchAll(
                db, sql: "SELECT at FROM console_sign_in_failures WHERE address = ? ORDER BY at",
                arguments: [address]
            ).map(Date.init(stored:))
        }
    }
}
