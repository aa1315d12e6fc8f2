/// Which of an app's tokens besides its device tokens to list (`GET /v1/activities/tokens`, `GET /v1/widgets/tokens`);
/// `nil` fields match any.
struct ActivityTokenQuery: Sendable {
    var appID: String
    var token: String?
    var userID: String?
    var attributesType: String?
    var activityID: String?
    var kind: String?
    /// The kinds the route lists: a Live Activity route never shows a widget token, nor the other way round.
    var kinds: [String]?
    /// The last token of the previous page.
    var after: String?
    var limit: Int

    /// The conditions after `WHERE a.app_id = ?`, with `?` marks, and their values in order.
    var condition: (sql: String, values: [String]) {
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
