import Foundation

/// A notification row: what workers need to send each of its deliveries.
struct StoredNotification: Sendable {
    var id: String
    var appID: String
    var target: String
    var payload: Data
    var pushType: String
    var priority: Int?
    var expiration: Int?
    var collapseID: String?
    var encryptedKey: String?
    var encrypted: Data?
    var sendAt: Date
    var dailyAt: String?
    var targeted: Int
    var createdAt: Date
}
