import Foundation
import HeraldJSON

/// A receipt batch's rows as one JSON array each, which a statement reads with `jsonb_to_recordset` (one parameter
/// for any number of rows, and a missing key is `NULL`, which `unnest` of arrays cannot say). Keys are the
/// statement's column names; times are seconds since 1970 (`to_timestamp`). Written field by field (a receipt storm
/// writes thousands of rows a second; a general encoder was the batch's largest cost).
enum ReceiptRows {
    /// The feedback rows to insert.
    static func feedback(_ rows: [ReceiptDelivery.Feedback]) -> String {
        array(rows) { row, object in
            object.number("delivery_id", row.deliveryID)
            object.string("notification_id", row.notificationID)
            object.string("event", row.event)
            object.string("action", row.action)
            object.string("reply", row.reply)
            object.time("at", row.at)
        }
    }

    /// The deliveries' columns as a batch of receipts leaves them.
    static func deliveries(_ rows: [ReceiptDelivery]) -> String {
        array(rows) { delivery, object in
            object.number("id", delivery.deliveryID)
            for column in ReceiptDelivery.stampColumns {
                object.time(column, delivery.stamps[column])
            }
            object.string("action", delivery.action)
            object.string("reply", delivery.reply)
            object.string("outcome", delivery.outcome)
            object.string("outcome_detail", delivery.outcomeDetail)
        }
    }

    private static func array<Row>(_ rows: [Row], _ fields: (Row, inout Object) -> Void) -> String {
        var object = Object()
        object.output.reserveCapacity(rows.count * 160 + 2)
        object.output.append(UInt8(ascii: "["))
        for (index, row) in rows.enumerated() {
            if index > 0 { object.output.append(UInt8(ascii: ",")) }
            object.output.append(UInt8(ascii: "{"))
            object.isFirst = true
            fields(row, &object)
            object.output.append(UInt8(ascii: "}"))
        }
        object.output.append(UInt8(ascii: "]"))
        return String(decoding: object.output, as: UTF8.self)
    }

    /// One JSON object's members, appended to `output`; a `nil` value is left out (`NULL` to the statement).
    private struct Object {
        var output: [UInt8] = []
        var isFirst = true

        mutating func string(_ name: String, _ value: String?) {
            guard let value else { return }
            key(name)
            JSONValue.writeString(value, into: &output)
        }

        mutating func number(_ name: String, _ value: Int64) {
            key(name)
            output.append(contentsOf: String(value).utf8)
        }

        mutating func time(_ name: String, _ value: Date?) {
            guard let value else { return }
            key(name)
            output.append(contentsOf: value.timeIntervalSince1970.description.utf8)
        }

        private mutating func key(_ name: String) {
            if !isFirst { output.append(UInt8(ascii: ",")) }
            isFirst = false
            JSONValue.writeString(name, into: &output)
            output.append(UInt8(ascii: ":"))
        }
    }
}
