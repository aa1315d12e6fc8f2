public import Foundation

/// One answer a person gave to a notification on a device, as `GET /v1/notifications/{id}/responses` lists it: a tap
/// (`opened`), a swipe away (`dismissed`) or an action button (`action`, with the typed text of a text-input action).
public struct NotificationResponse: Codable, Sendable, Hashable {
    /// The cursor of this response: pass it as `after` for the next page.
    public var id: Int64
    /// `opened`, `dismissed` or `action`.
    public var event: String
    /// The action's identifier, for `action`.
    public var action: String?
    /// What the person typed, for a text-input action.
    public var text: String?
    /// The delivery's `apns-id`.
    public var apnsID: String
    /// The device token that answered.
    public var token: String
    /// The user the device is bound to, when it is.
    public var userID: String?
    /// When the device reported it.
    public var at: Date
}
