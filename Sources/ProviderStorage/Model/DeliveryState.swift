/// Where a delivery (one device token of one notification) is: SQLite's `deliveries.state` column (on PostgreSQL
/// `delivery_view.state`: its result's state, else `queued` or `leased` by its queue row), and `state` in
/// `GET /v1/deliveries/{apns-id}`.
///
/// `queued` → `leased` → `accepted` or `rejected`; a retry, an expired lease or a stopping provider puts a leased
/// delivery back to `queued`; a cancelled notification's queued deliveries become `cancelled`, and a resend puts a
/// rejected one back to `queued`.
package enum DeliveryState: String, Codable, Sendable, CaseIterable {
    /// Waiting for its time (`not_before`) and a worker.
    case queued
    /// A worker holds it until its lease runs out: being sent, no answer recorded yet.
    case leased
    /// APNs answered 200.
    case accepted
    /// APNs refused it for good.
    case rejected
    /// Its notification was cancelled (`DELETE /v1/notifications/{id}`) before it was sent.
    case cancelled

    /// The state read from the database.
    ///
    /// - Throws: ``ProviderError/storage(_:)`` for a value Herald never writes.
    package init(stored text: String) throws(ProviderError) {
        guard let state = Self(rawValue: text) else {
            throw .storage(
                "a delivery's state is '\(text)', none of \(Self.allCases.map(\.rawValue).joined(separator: ", ")): "
                    + "something other than Herald wrote to the database")
        }
        self = state
    }

    /// The state as an SQL string literal, the same on SQLite and PostgreSQL. The queries write it in, never bind
    /// it, so that SQLite's partial indexes on `state` (`WHERE state = 'queued'`) match them.
    package var sql: String { "'\(rawValue)'" }
}
