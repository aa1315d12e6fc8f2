package import Foundation

/// One answer a person gave to a notification on a device, as `GET /v1/notifications/{id}/responses` lists it: a tap
/// (`opened`), a swipe away (`dismissed`) or an action button (`action`, with the typed text of a text-input action).
package struct NotificationResponse: Codable, Sendable, Hashable {
    /// The cursor of this response: pass it as `after` for the next page.
    package var id: Int64
    /// `opened`, `dismissed` or `action`.
    package var event: String
    /// The action's identifier, for `action`.
    package var action: String?
    /// What the person typed, for a text-input action.
    package var text: String?
    /// The delivery's `apns-id`.
    package var apnsID: String
    /// The device token that answered.
    package var token: String
    /// The user the device is bound to, when it is.
    package var userID: String?
    /// When the device reported it.
    package var at: Date
}
