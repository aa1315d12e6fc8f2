/// Which of an app's tokens besides its device tokens to list (`GET /v1/activities/tokens`, `GET /v1/widgets/tokens`);
/// `nil` fields match any.
package struct ActivityTokenQuery: Sendable {
    package var appID: String
    package var token: String?
    package var userID: String?
    package var attributesType: String?
    package var activityID: String?
    package var kind: String?
    /// The kinds the route lists: a Live Activity route never shows a widget token, nor the other way round.
    package var kinds: [String]?
    /// The last token of the previous page.
    package var after: String?
    package var limit: Int

    /// Every stored property, as given.
    package init(
        appID: String, token: String? = nil, userID: String? = nil, attributesType: String? = nil,
        activityID: String? = nil, kind: String? = nil, kinds: [String]? = nil, after: String? = nil, limit: Int
    ) {
        self.appID = appID
        self.token = token
        self.userID = userID
        self.attributesType = attributesType
        self.activityID = activityID
        self.kind = kind
        self.kinds = kinds
        self.after = after
        self.limit = limit
    }

    /// The conditions after `WHERE a.app_id = ?`, with `?` marks, and their values in order.
    package var condition: (sql: String, values: [String]) {
        var sql = ""
        var values: [String] = []
        for (column, value) in [
            ("token", token), ("user_id", userID), ("attributes_type", attributesType), ("activity_id", activityID),
            ("kind", kind),
        ] {
            guard let value else { continue }
            sql += " AND a.\(column) = ?"
            values.append(value)
        }
        if let kinds {
            sql += " AND a.kind IN (\(kinds.map { _ in "?" }.joined(separator: ", ")))"
            values += kinds
        }
        if let after {
            sql += " AND a.token > ?"
            values.append(after)
        }
        return (sql, values)
    }
}
