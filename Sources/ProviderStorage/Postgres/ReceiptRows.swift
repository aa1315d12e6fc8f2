import Foundation

/// A receipt batch's rows as one JSON array each, which a statement reads with `jsonb_to_recordset` (one parameter
/// for any number of rows, and a missing key is `NULL`, which `unnest` of arrays cannot say). Times are seconds since
/// 1970 (`to_timestamp`).
enum ReceiptRows {
    /// A feedback row to insert.
    struct Feedback: Encodable {
        var deliveryId: Int64
        var notificationId: String
        var event: String
        var action: String?
        var reply: String?
        var at: Double

        init(_ row: ReceiptDelivery.Feedback) {
            deliveryId = row.deliveryID
            notificationId = row.notificationID
            event = row.event
            action = row.action
            reply = row.reply
            at = row.at.timeIntervalSince1970
        }
    }

    /// A delivery's columns as a batch of receipts leaves them.
    struct Delivery: Encodable {
        var id: Int64
        var deliveredAt: Double?
        var displayedAt: Double?
        var openedAt: Double?
        var dismissedAt: Double?
        var action: String?
        var reply: String?
        var outcome: String?
        var outcomeDetail: String?

        init(_ delivery: ReceiptDelivery) {
            id = delivery.deliveryID
            deliveredAt = delivery.stamps["delivered_at"]?.timeIntervalSince1970
            displayedAt = delivery.stamps["displayed_at"]?.timeIntervalSince1970
            openedAt = delivery.stamps["opened_at"]?.timeIntervalSince1970
            dismissedAt = delivery.stamps["dismissed_at"]?.timeIntervalSince1970
            action = delivery.action
            reply = delivery.reply
            outcome = delivery.outcome
            outcomeDetail = delivery.outcomeDetail
        }
    }

    /// The rows as a JSON array with snake_case keys, the statement's column names.
    static func json<Row: Encodable>(_ rows: [Row]) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(rows), as: UTF8.self)
    }
}
