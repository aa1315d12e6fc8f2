package import Foundation
import GRDB

extension SQLiteStore {
    package func recordAudit(_ entry: AuditEntry) async throws(ProviderError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO audit_log (at, actor, key_id, console, app_id, kind, method, route, path, status, address,
                        fields)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    entry.at.stored, entry.actor, entry.keyID, entry.console, entry.appID, entry.kind, entry.method,
                    entry.route, entry.path, entry.status, entry.address, entry.fields?.joined(separator: ","),
                ])
        }
    }

    package func auditEntries(_ query: AuditQuery) async throws(ProviderError) -> [AuditEntry] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, at, actor, key_id, console, app_id, kind, method, route, path, status, address, fields
                    FROM audit_log
                    WHERE at >= ? AND at <= ? AND (? IS NULL OR app_id = ?) AND (? IS NULL OR kind = ?)
                        AND (? IS NULL OR key_id = ?) AND (? IS NULL OR id < ?)
                    ORDER BY id DESC LIMIT ?
                    """,
                arguments: [
                    query.from.stored, query.to.stored, query.appID, query.appID, query.kind, query.kind, query.keyID,
                    query.keyID, query.before, query.before, query.limit,
                ]
            ).map { row in
                AuditEntry(
                    id: row[0], at: Date(stored: row[1]), actor: row[2], keyID: row[3], console: row[4], appID: row[5],
                    kind: row[6], method: row[7], route: row[8], path: row[9],
                    fields: (row[12] as String?).map { $0.split(separator: ",").map(String.init) }, status: row[10],
                    address: row[11])
            }
        }
    }

    package func pruneAudit(before: Date, limit: Int) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY id LIMIT ?)",
                arguments: [before.stored, limit])
            return db.changesCount
        }
    }
}
