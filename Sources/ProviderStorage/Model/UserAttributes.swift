package import Foundation

/// A user's attributes, as `GET /v1/users/{id}/attributes` shows them: what a notification's variables read for each
/// of the user's devices, where the device has no attribute of that name itself.
package struct UserAttributes: Codable, Sendable, Hashable {
    package var userID: String
    package var attributes: [String: String]
    /// When they were last set; `nil` for a user who has none.
    package var updatedAt: Date?

    package init(userID: String, attributes: [String: String], updatedAt: Date?) {
        self.userID = userID
        self.attributes = attributes
        self.updatedAt = updatedAt
    }
}
