/// What a Live Activity shows: its fixed attributes (this type) and its changing ``ContentState``, as ActivityKit
/// declares them. A push-to-start push names the type in `attributes-type`: the type's name, as Swift prints it.
public protocol ActivityAttributes: Codable, Sendable {
    /// The part of the activity that updates change.
    associatedtype ContentState: Codable & Hashable & Sendable
}
