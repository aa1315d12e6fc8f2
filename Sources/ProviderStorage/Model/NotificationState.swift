/// How far a notification got, as `state` in `GET /v1/notifications/{id}` says it.
package enum NotificationState: String, Codable, Sendable, CaseIterable {
    /// Before its `sendAt`, or repeated daily (`dailyAt`).
    case scheduled
    /// Deliveries are queued or in flight.
    case sending
    /// Every delivery has APNs' answer.
    case done
    /// Cancelled (`DELETE /v1/notifications/{id}`): what was not sent then never will be.
    case cancelled
}
