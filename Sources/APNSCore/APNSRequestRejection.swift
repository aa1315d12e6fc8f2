public import Foundation

/// A request APNs would refuse: the reason it would answer with, and a message saying what was wrong and how to fix
/// it.
public struct APNSRequestRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reason APNs answers with.
    public let reason: APNSReason
    /// What was wrong and what to do, for a person.
    public let message: String
    /// For `410` reasons: when the token stopped being valid for the topic (the body's `timestamp`).
    public let invalidSince: Date?

    public init(_ reason: APNSReason, _ message: String, invalidSince: Date? = nil) {
        self.reason = reason
        self.message = message
        self.invalidSince = invalidSince
    }

    /// The HTTP status APNs answers with (400 for a reason Apple does not document).
    public var status: Int { reason.status ?? 400 }

    public var description: String { "\(status) \(reason): \(message)" }
}
