package import Foundation

/// A broadcast channel the provider made for an app at APNs, as `GET /v1/channels` shows it.
package struct ChannelRecord: Codable, Sendable, Hashable {
    /// The `apns-channel-id` APNs chose (base64); the target of a broadcast (`{"target": {"channel": id}}`) and what
    /// an activity subscribes with (`pushType: .channel(id)`).
    package var id: String
    /// A name for people.
    package var name: String?
    /// `0` No Message Stored, `1` Most Recent Message Stored.
    package var storagePolicy: Int
    package var createdAt: Date

    /// Every stored property, as given.
    package init(id: String, name: String? = nil, storagePolicy: Int, createdAt: Date) {
        self.id = id
        self.name = name
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt
    }
}

/// The body of `POST /v1/channels`.
package struct ChannelInput: StrictInput, Sendable {
    package var name: String?
    /// `0` (the default) or `1`.
    package var storagePolicy: Int?

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case name, storagePolicy
    }

    package static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
}
