package import Foundation
import GRDB

extension SQLiteStore {
    package func lease(owner: String, limit: Int, now: Date, leaseFor: TimeInterval) async throws(ProviderError)
        -> [LeasedDelivery]
    {
        try await write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    UPDATE deliveries SET state = \(DeliveryState.leased.sql), lease_owner = ?, lease_until = ?, attempts = attempts + 1
                    WHERE id IN (
                        SELECT id FROM deliveries WHERE state = \(DeliveryState.queued.sql) AND not_before <= ?
                        ORDER BY not_before, id LIMIT ?)
                    RETURNING id, notification, token, attempts, channel_id
                    """, arguments: [owner, now.addingTimeInterval(leaseFor).stored, now.stored, limit])
            // A lease holds the deliveries of a few notifications: their ids and apps are read once each.
            var notifications: [Int64: (id: String, appID: String)] = [:]
            let notification = try db.cachedStatement(sql: "SELECT id, app_id FROM notifications WHERE number = ?")
            for number in Set(rows.map { $0[1] as Int64 }) {
                if let row = try Row.fetchOne(notification, arguments: [number]) {
                    notifications[number] = (row[0], row[1])
                } else {
                    // Its app was deleted, which deletes these next: they are deleted now instead of being sent.
                    try db.execute(sql: "DELETE FROM deliveries WHERE notification = ?", arguments: [number])
                }
            }
            return rows.compactMap { row in
                // By position (the RETURNING list's order): a column looked up by name costs a lowercased copy of
                // the name per row, and a lease is thousands of rows.
                guard let owner = notifications[row[1]] else { return nil }
                return LeasedDelivery(
                    id: row[0], notificationID: owner.id, appID: owner.appID,
                    address: DeliveryAddress(token: CompactText.tokenText(row[2]), channelID: row[4]),
                    attempts: row[3])
            }.sorted { $0.id < $1.id }
        }
    }

    package func record(_ results: [DeliveryResult], owner: String) async throws(ProviderError) {
        guard !results.isEmpty else { return }
        try await write { db in
            let accepted = try db.cachedStatement(
                sql: """
                    UPDATE deliveries SET state = \(DeliveryState.accepted.sql), status = 200, apns_unique_id = ?, result_at = ?,
                        lease_owner = NULL, lease_until = NULL
                    WHERE id = ? AND lease_owner = ?
                    """)
            let rejected = try db.cachedStatement(
                sql: """
                    UPDATE deliveries SET state = \(DeliveryState.rejected.sql), status = ?, reason = ?, result_at = ?,
                        lease_owner = NULL, lease_until = NULL
                    WHERE id = ? AND lease_owner = ?
                    """)
            let retry = try db.cachedStatement(
                sql: """
                    UPDATE deliveries SET state = \(DeliveryState.queued.sql), reason = ?, not_before = ?, lease_owner = NULL,
                        lease_until = NULL
                    WHERE id = ? AND lease_owner = ?
                    """)
            let wait = try db.cachedStatement(
                sql: """
                    UPDATE deliveries SET state = \(DeliveryState.queued.sql), reason = ?, not_before = ?, lease_owner = NULL,
                        lease_until = NULL, attempts = attempts - 1
                    WHERE id = ? AND lease_owner = ?
                    """)
            let deactivate = try db.cachedStatement(
                sql: """
                    UPDATE devices SET active = 0, deactivated_at = ?, deactivation_reason = ?
                    WHERE app_id = ? AND token = ? AND registered_at < ?
                    """)
            // An activity's token that APNs retired is forgotten: the activity ended, or the app was removed.
            let retireActivityToken = try db.cachedStatement(
                sql: "DELETE FROM activity_tokens WHERE app_id = ? AND token = ? AND registered_at < ?")
            // Only rows still leased by this owner change, and only those are counted.
            var counts: [CounterKey: Int] = [:]
            for result in results {
                switch result {
                case .accepted(let id, let notification, let uniqueID, let at):
                    try accepted.execute(arguments: [CompactText.uniqueID(uniqueID), at.stored, id, owner])
                    if db.changesCount > 0 { counts[CounterKey(notification, .accepted), default: 0] += 1 }
                case .rejected(let id, let notification, let status, let reason, let at, let deactivation):
                    try rejected.execute(arguments: [status, reason, at.stored, id, owner])
                    if db.changesCount > 0 { counts[CounterKey(notification, .rejected, reason), default: 0] += 1 }
                    if let deactivation {
                        let registeredBefore = deactivation.registeredBefore.stored
                        try deactivate.execute(arguments: [
                            deactivation.at.stored, deactivation.reason, deactivation.appID, deactivation.token,
                            registeredBefore,
                        ])
                        try retireActivityToken.execute(arguments: [
                            deactivation.appID, deactivation.token, registeredBefore,
                        ])
                    }
                case .retry(let id, let reason, let notBefore):
                    try retry.execute(arguments: [reason, notBefore.stored, id, owner])
                case .wait(let id, let reason, let notBefore):
                    try wait.execute(arguments: [reason, notBefore.stored, id, owner])
                }
            }
            try Self.add(counts, db)
        }
    }

    /// Adds to the notifications' counters.
    static func add(_ counts: [CounterKey: Int], _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO notification_counters (notification_id, name, reason, n) VALUES (?, ?, ?, ?)
                ON CONFLICT (notification_id, name, reason) DO UPDATE SET n = n + excluded.n
                """)
        for (key, count) in counts {
            try statement.execute(arguments: [key.notificationID, key.counter.rawValue, key.reason, count])
        }
    }

    package func reclaimExpiredLeases(now: Date) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET state = \(DeliveryState.queued.sql), lease_owner = NULL, lease_until = NULL
                    WHERE state = \(DeliveryState.leased.sql) AND lease_until < ?
                    """, arguments: [now.stored])
            return db.changesCount
        }
    }

    package func heartbeat(owner: String, staleAfter: TimeInterval) async throws(ProviderError) -> Int { 0 }

    package func wakeWaiting(appID: String, reason: String, now: Date) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET not_before = ?
                    WHERE state = \(DeliveryState.queued.sql) AND not_before > ? AND reason = ?
                        AND notification IN (SELECT number FROM notifications WHERE app_id = ?)
                    """, arguments: [now.stored, now.stored, reason, appID])
            return db.changesCount
        }
    }

    package func releaseLeases(owner: String) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET state = \(DeliveryState.queued.sql), lease_owner = NULL, lease_until = NULL, attempts = attempts - 1
                    WHERE state = \(DeliveryState.leased.sql) AND lease_owner = ?
                    """, arguments: [owner])
            return db.changesCount
        }
    }

    package func releaseLease(owner: String, until: Date) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET state = \(DeliveryState.queued.sql), lease_owner = NULL, lease_until = NULL, attempts = attempts - 1
                    WHERE state = \(DeliveryState.leased.sql) AND lease_owner = ? AND lease_until = ?
                    """, arguments: [owner, until.stored])
            return db.changesCount
        }
    }

    package func extendLeases(owner: String, until: Date) async throws(ProviderError) -> Int {
        try await write { db in
            try db.execute(
                sql:
                    "UPDATE deliveries SET lease_until = ? WHERE state = \(DeliveryState.leased.sql) AND lease_owner = ?",
                arguments: [until.stored, owner])
            return db.changesCount
        }
    }

    /// Always exact (SQLite keeps no statistics to estimate from): the count reads the queue's partial index on a reader
    /// connection, beside the writer; 0.55–0.68 s for 10,000,000 queued deliveries, 0.6 ms for 10,001.
    package func queueDepth(exactUpTo: Int) async throws(ProviderError) -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM deliveries WHERE state = \(DeliveryState.queued.sql)") ?? 0
        }
    }

    package func queueGauges(now: Date) async throws(ProviderError) -> (leased: Int, oldestDue: Date?) {
        try await read { db in
            let leased =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM deliveries WHERE state = \(DeliveryState.leased.sql)")
                ?? 0
            let oldest = try Double.fetchOne(
                db,
                sql: """
                    SELECT min(not_before) FROM deliveries
                    WHERE state = \(DeliveryState.queued.sql) AND not_before <= ?
                    """, arguments: [now.stored])
            return (leased, oldest.map(Date.init(stored:)))
        }
    }
}
