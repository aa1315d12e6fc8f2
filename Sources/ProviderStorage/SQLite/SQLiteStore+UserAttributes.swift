package import Foundation
import GRDB

extension SQLiteStore {
    package func setUserAttributes(appID: String, userID: String, attributes: [String: String], at: Date)
        async throws(ProviderError)
    {
        try await write { db in
            if attributes.isEmpty {
                try db.execute(
                    sql: "DELETE FROM user_attributes WHERE app_id = ? AND user_id = ?", arguments: [appID, userID])
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO user_attributes (app_id, user_id, attributes, updated_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (app_id, user_id) DO UPDATE
                            SET attributes = excluded.attributes, updated_at = excluded.updated_at
                        """, arguments: [appID, userID, DeviceAttributes.encode(attributes), at.stored])
            }
        }
    }

    package func userAttributes(appID: String, userID: String) async throws(ProviderError) -> UserAttributes {
        try await read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT attributes, updated_at FROM user_attributes WHERE app_id = ? AND user_id = ?",
                arguments: [appID, userID])
            return UserAttributes(
                userID: userID, attributes: DeviceAttributes.decode(row?[0]) ?? [:],
                updatedAt: (row?[1] as Double?).map(Date.init(stored:)))
        }
    }
}
