package import Foundation
import GRDB

extension SQLiteStore {
    package func upsertDevice(appID: String, _ input: DeviceInput, at: Date) async throws(ProviderError) -> (
        DeviceRecord, created: Bool
    ) {
        try await write { db in
            let created = try Self.upsert(db, appID: appID, input, at: at)
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM devices WHERE app_id = ? AND token = ?",
                arguments: [appID, input.token.lowercased()])
            // Safety: the row was written above in this transaction.
            return (Self.device(from: row!), created)
        }
    }

    package func upsertDevices(appID: String, _ inputs: [DeviceInput], at: Date) async throws(ProviderError) -> Int {
        // In the order of the tokens' index, neighbours land on the same pages; a token given twice keeps its order
        // (the later registration wins).
        // Only the order is sorted: a sorted copy of the registrations would hold a second array of them while a
        // 100,000-device import is written.
        let order = inputs.indices.map { (token: inputs[$0].token.lowercasedToken, index: $0) }.sorted { $0 < $1 }
        return try await write { db in
            var created = 0
            for (_, index) in order where try Self.upsert(db, appID: appID, inputs[index], at: at) { created += 1 }
            return created
        }
    }

    /// Inserts or updates one registration; `true` when the token is new. A registration brings back a token
    /// deactivated before it; fields not given keep their values. A new token costs one insert (a bulk import of new
    /// devices is one statement each); a known one, an insert that does nothing and an update.
    private static func upsert(_ db: Database, appID: String, _ input: DeviceInput, at: Date) throws -> Bool {
        let token = input.token.lowercasedToken
        let tagsJSON = input.tags.map { tags in
            String(decoding: (try? JSONEncoder().encode(tags)) ?? Data(), as: UTF8.self)
        }
        let stamp = at.stored
        let attributes = input.attributes.map(DeviceAttributes.encode)
        try db.cachedStatement(
            sql: """
                INSERT INTO devices (app_id, token, user_id, tags, locale, time_zone, app_version, public_key,
                    active, registered_at, updated_at, attributes)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
                ON CONFLICT (app_id, token) DO NOTHING
                """
        ).execute(arguments: [
            appID, token, input.userID, tagsJSON ?? "[]", input.locale, input.timeZone, input.appVersion,
            input.publicKey, stamp, stamp, attributes,
        ])
        let created = db.changesCount > 0
        if !created {
            try db.cachedStatement(
                sql: """
                    UPDATE devices SET
                        user_id = coalesce(?1, user_id),
                        tags = coalesce(?2, tags),
                        locale = coalesce(?3, locale),
                        time_zone = coalesce(?4, time_zone),
                        app_version = coalesce(?5, app_version),
                        public_key = coalesce(?6, public_key),
                        active = CASE WHEN deactivated_at IS NULL OR deactivated_at < ?7 THEN 1 ELSE active END,
                        deactivated_at = CASE WHEN deactivated_at < ?7 THEN NULL ELSE deactivated_at END,
                        deactivation_reason = CASE WHEN deactivated_at < ?7 THEN NULL ELSE deactivation_reason END,
                        registered_at = ?7,
                        updated_at = ?7,
                        attributes = coalesce(?10, attributes)
                    WHERE app_id = ?8 AND token = ?9
                    """
            ).execute(arguments: [
                input.userID, tagsJSON, input.locale, input.timeZone, input.appVersion, input.publicKey, stamp,
                appID, token, attributes,
            ])
        }
        if let tags = input.tags {
            if !created {
                try db.cachedStatement(sql: "DELETE FROM device_tags WHERE app_id = ? AND token = ?")
                    .execute(arguments: [appID, token])
            }
            for tag in Set(tags) {
                try db.cachedStatement(sql: "INSERT INTO device_tags (app_id, token, tag) VALUES (?, ?, ?)")
                    .execute(arguments: [appID, token, tag])
            }
        }
        return created
    }

    package func device(appID: String, token: String) async throws(ProviderError) -> DeviceRecord? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM devices WHERE app_id = ? AND token = ?", arguments: [appID, token.lowercased()]
            ).map(Self.device(from:))
        }
    }

    package func devices(_ query: DeviceQuery) async throws(ProviderError) -> [DeviceRecord] {
        // With a tag the page is walked on device_tags' key (app, tag, token), so a rare tag among a million devices
        // costs its own rows only; with a user, on the user's index (SQLite, without statistics, would rather walk
        // every token in order: 250 ms among a million). `active = 0` is written out so that the partial index of
        // deactivated tokens serves.
        var sql =
            query.tag == nil
            ? "SELECT d.* FROM devices d \(query.userID == nil ? "" : "INDEXED BY devices_user ")WHERE d.app_id = ?"
            : """
            SELECT d.* FROM device_tags t JOIN devices d ON d.app_id = t.app_id AND d.token = t.token
            WHERE t.app_id = ? AND t.tag = ?
            """
        var arguments: [(any DatabaseValueConvertible)?] = [query.appID]
        if let tag = query.tag { arguments.append(tag) }
        if let userID = query.userID {
            sql += " AND d.user_id = ?"
            arguments.append(userID)
        }
        if let active = query.active { sql += active ? " AND d.active = 1" : " AND d.active = 0" }
        let column = query.tag == nil ? "d.token" : "t.token"
        if let after = query.after {
            sql += " AND \(column) > ?"
            arguments.append(after)
        }
        sql += " ORDER BY \(column) LIMIT ?"
        arguments.append(query.limit)
        let statementArguments = StatementArguments(arguments)
        return try await read { [sql] db in
            try Row.fetchAll(db, sql: sql, arguments: statementArguments).map(Self.device(from:))
        }
    }

    package func deleteDevice(appID: String, token: String) async throws(ProviderError) -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM device_tags WHERE app_id = ? AND token = ?", arguments: [appID, token.lowercased()])
            try db.execute(
                sql: "DELETE FROM devices WHERE app_id = ? AND token = ?", arguments: [appID, token.lowercased()])
            return db.changesCount > 0
        }
    }

    package func deactivateDevice(appID: String, token: String, reason: String, at: Date) async throws(ProviderError)
        -> Bool
    {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE devices SET active = 0, deactivated_at = ?, deactivation_reason = ?, updated_at = ?
                    WHERE app_id = ? AND token = ? AND active = 1
                    """,
                arguments: [at.stored, reason, at.stored, appID, token.lowercased()])
            return db.changesCount > 0
        }
    }

    package func timeZones(appID: String, tokens: [String]) async throws(ProviderError) -> [String: String] {
        try await column("time_zone", appID: appID, tokens: tokens)
    }

    package func publicKeys(appID: String, tokens: [String]) async throws(ProviderError) -> [String: String] {
        try await column("public_key", appID: appID, tokens: tokens)
    }

    func column(_ name: String, appID: String, tokens: [String]) async throws(ProviderError)
        -> [String: String]
    {
        try await read { db in
            var found: [String: String] = [:]
            try Self.inLists(tokens) { part, marks in
                let rows = try Row.fetchAll(
                    db,
                    sql: "SELECT token, \(name) AS value FROM devices WHERE app_id = ? AND token IN (\(marks))",
                    arguments: StatementArguments([appID] + part))
                for row in rows {
                    if let value: String = row["value"] { found[row["token"]] = value }
                }
            }
            return found
        }
    }

    static func device(from row: Row) -> DeviceRecord {
        let tags: String = row["tags"]
        return DeviceRecord(
            token: row["token"], userID: row["user_id"],
            tags: (try? JSONDecoder().decode([String].self, from: Data(tags.utf8))) ?? [], locale: row["locale"],
            timeZone: row["time_zone"], appVersion: row["app_version"], publicKey: row["public_key"],
            attributes: DeviceAttributes.decode(row["attributes"]), active: row["active"],
            deactivatedAt: (row["deactivated_at"] as Double?).map(Date.init(stored:)),
            deactivationReason: row["deactivation_reason"], registeredAt: Date(stored: row["registered_at"]),
            updatedAt: Date(stored: row["updated_at"]))
    }
}
