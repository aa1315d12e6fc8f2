package import Foundation

/// An app's API key as stored: its ID and what it may do, never the key (only its SHA-256 is kept).
package struct APIKeyRecord: Sendable, Hashable, Codable {
    package var id: String
    /// The scopes it was made with (`send`, `read`, ...); `nil`: everything its app may do (the app's first key, a key
    /// made without scopes, every key made before scopes existed).
    package var scopes: [String]?
    package var createdAt: Date

    package init(id: String, scopes: [String]?, createdAt: Date) {
        self.id = id
        self.scopes = scopes
        self.createdAt = createdAt
    }

    /// The scopes as stored: names joined by commas, or `NULL` for every scope.
    static func stored(_ scopes: [String]?) -> String? { scopes?.joined(separator: ",") }

    /// The scopes of a stored column.
    static func scopes(stored: String?) -> [String]? {
        stored.map { $0.split(separator: ",").map(String.init) }
    }
}
