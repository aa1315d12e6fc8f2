package import Foundation

/// A notification whose deliveries' rows were pruned (``RetentionDays``): enough to tell the owner of an `apns-id`
/// that its record is gone, and since when.
package struct PrunedNotification: Sendable, Hashable {
    package var id: String
    package var appID: String
    package var prunedAt: Date
}
