package import Foundation
import PostgresNIO

extension PostgresStore {
    package func setUserAttributes(appID: String, userID: String, attributes: [String: String], at: Date)
        async throws(ProviderError)
    {
        if attributes.isEmpty {
            try await rows("DELETE FROM user_attributes WHERE app_id = \(appID) AND user_id = \(userID)")
        } else {
            try await rows(
                """
                INSERT INTO user_attributes (app_id, user_id, attributes, updated_at)
                VALUES (\(appID), \(userID), \(DeviceAttributes.encode(attributes)), \(at))
                ON CONFLICT (app_id, user_id) DO UPDATE
                    SET attributes = excluded.attributes, updated_at = excluded.updated_at
                """)
        }
    }

    package func userAttributes(appID: String, userID: String) async throws(ProviderError) -> UserAttributes {
        let rows = try await rows(
            "SELECT attributes, updated_at FROM user_attributes WHERE app_id = \(appID) AND user_id = \(userID)")
        do {
            let row = try rows.first?.decode((String, Date).self)
            return UserAttributes(
                userID: userID, attributes: DeviceAttributes.decode(row?.0) ?? [:], updatedAt: row?.1)
        } catch {
            throw Self.failure(error)
        }
    }
}
