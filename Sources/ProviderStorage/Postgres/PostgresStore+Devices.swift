package import Foundation
import HeraldJSON
import PostgresNIO

extension PostgresStore {
    package func upsertDevice(appID: String, _ input: DeviceInput, at: Date) async throws(ProviderError) -> (
        DeviceRecord, created: Bool
    ) {
        let created = try await upsertDevices(appID: appID, [input], at: at) > 0
        guard let device = try await device(appID: appID, token: input.token) else {
            throw .storage("the device \(input.token) was written but cannot be read back")
        }
        return (device, created)
    }

    /// One statement for the whole batch: the registrations travel as one JSON array (`jsonb_to_recordset`), so a
    /// 10,000-device import is three round trips. A token given twice keeps its last registration.
    package func upsertDevices(appID: String, _ inputs: [DeviceInput], at: Date) async throws(ProviderError) -> Int {
        var latest: [String: Int] = [:]  // token → the position of its last registration
        latest.reserveCapacity(inputs.count)
        for (position, input) in inputs.enumerated() { latest[input.token.lowercasedToken] = position }
        let json = Self.recordset(latest.sorted { $0.value < $1.value }.map { ($0.key, inputs[$0.value]) })
        let retagged = latest.compactMap { inputs[$0.value].tags == nil ? nil : $0.key }
        return try await transaction { [logger] connection in
            let created =
                try await connection.rows(
                    """
                    WITH written AS (
                        INSERT INTO devices AS v (app_id, token, user_id, tags, locale, time_zone, app_version,
                            public_key, active, registered_at, updated_at, attributes)
                        SELECT \(appID), r.token, r.user_id, coalesce(r.tags, '[]'), r.locale, r.time_zone,
                            r.app_version, r.public_key, true, \(at), \(at), r.attributes
                        FROM jsonb_to_recordset(\(json)::jsonb) AS r(token text, user_id text, tags text, locale text,
                            time_zone text, app_version text, public_key text, attributes text)
                        ON CONFLICT (app_id, token) DO UPDATE SET
                            user_id = coalesce(excluded.user_id, v.user_id),
                            -- Tags change only when given: `retagged` lists the registrations that gave them.
                            tags = CASE WHEN excluded.token = ANY(\(retagged)) THEN excluded.tags ELSE v.tags END,
                            locale = coalesce(excluded.locale, v.locale),
                            time_zone = coalesce(excluded.time_zone, v.time_zone),
                            app_version = coalesce(excluded.app_version, v.app_version),
                            public_key = coalesce(excluded.public_key, v.public_key),
                            attributes = coalesce(excluded.attributes, v.attributes),
                            active = CASE WHEN v.deactivated_at IS NULL OR v.deactivated_at < excluded.registered_at
                                THEN true ELSE v.active END,
                            deactivated_at = CASE WHEN v.deactivated_at < excluded.registered_at
                                THEN NULL ELSE v.deactivated_at END,
                            deactivation_reason = CASE WHEN v.deactivated_at < excluded.registered_at
                                THEN NULL ELSE v.deactivation_reason END,
                            registered_at = excluded.registered_at,
                            updated_at = excluded.updated_at
                        RETURNING xmax = 0 AS inserted)
                    SELECT count(*) FILTER (WHERE inserted) FROM written
                    """, logger
                ).first?.decode(Int.self) ?? 0
            if !retagged.isEmpty {
                try await connection.rows(
                    "DELETE FROM device_tags WHERE app_id = \(appID) AND token = ANY(\(retagged))", logger)
                try await connection.rows(
                    """
                    INSERT INTO device_tags (app_id, token, tag)
                    SELECT \(appID), r.token, t.tag
                    FROM jsonb_to_recordset(\(json)::jsonb) AS r(token text, tags text),
                        jsonb_array_elements_text(r.tags::jsonb) AS t(tag)
                    WHERE r.tags IS NOT NULL
                    ON CONFLICT DO NOTHING
                    """, logger)
            }
            return created
        }
    }

    package func device(appID: String, token: String) async throws(ProviderError) -> DeviceRecord? {
        try await devices("SELECT * FROM devices WHERE app_id = \(appID) AND token = \(token.lowercased())").first
    }

    package func devices(_ query: DeviceQuery) async throws(ProviderError) -> [DeviceRecord] {
        let (appID, userID, active, after, limit) = (query.appID, query.userID, query.active, query.after, query.limit)
        // With a tag the page is walked on device_tags' key (app, tag, token): a rare tag costs its own rows only.
        if let tag = query.tag {
            return try await devices(
                """
                SELECT d.* FROM device_tags t JOIN devices d ON d.app_id = t.app_id AND d.token = t.token
                WHERE t.app_id = \(appID) AND t.tag = \(tag)
                    AND (\(userID)::text IS NULL OR d.user_id = \(userID))
                    AND (\(active)::boolean IS NULL OR d.active = \(active))
                    AND (\(after)::text IS NULL OR t.token > \(after))
                ORDER BY t.token LIMIT \(limit)
                """)
        }
        if active == false {
            // Written out so that the partial index of deactivated tokens serves.
            return try await devices(
                """
                SELECT d.* FROM devices d
                WHERE d.app_id = \(appID) AND NOT d.active
                    AND (\(userID)::text IS NULL OR d.user_id = \(userID))
                    AND (\(after)::text IS NULL OR d.token > \(after))
                ORDER BY d.token LIMIT \(limit)
                """)
        }
        return try await devices(
            """
            SELECT d.* FROM devices d
            WHERE d.app_id = \(appID)
                AND (\(userID)::text IS NULL OR d.user_id = \(userID))
                AND (\(active)::boolean IS NULL OR d.active = \(active))
                AND (\(after)::text IS NULL OR d.token > \(after))
            ORDER BY d.token LIMIT \(limit)
            """)
    }

    package func deleteDevice(appID: String, token: String) async throws(ProviderError) -> Bool {
        let token = token.lowercased()
        return try await transaction { [logger] connection in
            try await connection.rows("DELETE FROM device_tags WHERE app_id = \(appID) AND token = \(token)", logger)
            return try await connection.rows(
                "DELETE FROM devices WHERE app_id = \(appID) AND token = \(token) RETURNING 1", logger
            ).count > 0
        }
    }

    package func deactivateDevice(appID: String, token: String, reason: String, at: Date) async throws(ProviderError)
        -> Bool
    {
        let token = token.lowercased()
        return try await transaction { [logger] connection in
            try await connection.rows(
                """
                UPDATE devices SET active = false, deactivated_at = \(at), deactivation_reason = \(reason),
                    updated_at = \(at)
                WHERE app_id = \(appID) AND token = \(token) AND active RETURNING 1
                """, logger
            ).count > 0
        }
    }

    package func timeZones(appID: String, tokens: [String]) async throws(ProviderError) -> [String: String] {
        try await pairs(
            """
            SELECT token, time_zone FROM devices
            WHERE app_id = \(appID) AND token = ANY(\(tokens)) AND time_zone IS NOT NULL
            """)
    }

    package func publicKeys(appID: String, tokens: [String]) async throws(ProviderError) -> [String: String] {
        try await pairs(
            """
            SELECT token, public_key FROM devices
            WHERE app_id = \(appID) AND token = ANY(\(tokens)) AND public_key IS NOT NULL
            """)
    }

    func pairs(_ query: PostgresQuery) async throws(ProviderError) -> [String: String] {
        let rows = try await rows(query)
        do {
            var found: [String: String] = [:]
            for row in rows {
                let (key, value) = try row.decode((String, String).self)
                found[key] = value
            }
            return found
        } catch {
            throw Self.failure(error)
        }
    }

    private func devices(_ query: PostgresQuery) async throws(ProviderError) -> [DeviceRecord] {
        let rows = try await rows(query)
        do {
            return try rows.map { try Self.device(from: $0.makeRandomAccess()) }
        } catch {
            throw Self.failure(error)
        }
    }

    private static func device(from row: PostgresRandomAccessRow) throws -> DeviceRecord {
        let tags = try row.column("tags", as: String?.self)
        return DeviceRecord(
            token: try row.column("token"), userID: try row.column("user_id"),
            tags: tags.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? [],
            locale: try row.column("locale"), timeZone: try row.column("time_zone"),
            appVersion: try row.column("app_version"), publicKey: try row.column("public_key"),
            attributes: DeviceAttributes.decode(try row.column("attributes", as: String?.self)),
            active: try row.column("active"), deactivatedAt: try row.column("deactivated_at"),
            deactivationReason: try row.column("deactivation_reason"), registeredAt: try row.column("registered_at"),
            updatedAt: try row.column("updated_at"))
    }

    /// The registrations as the JSON array `jsonb_to_recordset` reads: `token`, and each field given (`tags` as the
    /// JSON array's text). Written field by field: Foundation's encoder held several times the text's size for a
    /// 100,000-device import.
    private static func recordset(_ registrations: [(token: String, input: DeviceInput)]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(registrations.count * 96)
        output.append(UInt8(ascii: "["))
        for (position, (token, input)) in registrations.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            output.append(contentsOf: #"{"token":"#.utf8)
            JSONValue.writeString(token, into: &output)
            let tags = input.tags.map { JSONValue.array($0.map(JSONValue.string)).jsonString }
            for (key, value) in [
                ("user_id", input.userID), ("tags", tags), ("locale", input.locale), ("time_zone", input.timeZone),
                ("app_version", input.appVersion), ("public_key", input.publicKey),
                ("attributes", input.attributes.map(DeviceAttributes.encode)),
            ] {
                guard let value else { continue }
                output.append(contentsOf: #",""#.utf8)
                output.append(contentsOf: key.utf8)
                output.append(contentsOf: #"":"#.utf8)
                JSONValue.writeString(value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
        output.append(UInt8(ascii: "]"))
        return String(decoding: output, as: UTF8.self)
    }
}
