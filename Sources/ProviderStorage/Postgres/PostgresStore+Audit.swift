package import Foundation
import PostgresNIO

extension PostgresStore {
    package func recordAudit(_ entry: AuditEntry) async throws(ProviderError) {
        try await rows(
            """
            INSERT INTO audit_log (at, actor, key_id, console, app_id, kind, method, route, path, status, address,
                fields)
            VALUES (\(entry.at), \(entry.actor), \(entry.keyID), \(entry.console), \(entry.appID), \(entry.kind),
                \(entry.method), \(entry.route), \(entry.path), \(entry.status), \(entry.address),
                \(entry.fields?.joined(separator: ",")))
            """)
    }

    package func auditEntries(_ query: AuditQuery) async throws(ProviderError) -> [AuditEntry] {
        let rows = try await rows(
            """
            SELECT id, at, actor, key_id, console, app_id, kind, method, route, path, status, address, fields
            FROM audit_log
            WHERE at >= \(query.from) AND at <= \(query.to)
                AND (\(query.appID)::text IS NULL OR app_id = \(query.appID))
                AND (\(query.kind)::text IS NULL OR kind = \(query.kind))
                AND (\(query.keyID)::text IS NULL OR key_id = \(query.keyID))
                AND (\(query.before)::bigint IS NULL OR id < \(query.before))
            ORDER BY id DESC LIMIT \(query.limit)
            """)
        do {
            return try rows.map { row in
                let (id, at, actor, keyID, console, appID, kind, method, route, path, status, address, fields) =
                    try row.decode(
                        (
                            Int64, Date, String, String?, Bool, String?, String, String, String, String, Int, String,
                            String?
                        ).self)
                return AuditEntry(
                    id: id, at: at, actor: actor, keyID: keyID, console: console, appID: appID, kind: kind,
                    method: method, route: route, path: path,
                    fields: fields.map { $0.split(separator: ",").map(String.init) }, status: status, address: address)
            }
        } catch {
            throw Self.failure(error)
        }
    }

    package func pruneAudit(before: Date, limit: Int) async throws(ProviderError) -> Int {
        try await count(
            """
            WITH gone AS (
                DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < \(before) ORDER BY id LIMIT \(limit))
                RETURNING 1)
            SELECT count(*) FROM gone
            """)
    }
}
