public import CoreLocation
import Foundation

/// Fires when the device enters or leaves a region (`notifyOnEntry`, `notifyOnExit`); the device reports positions.
// Safety: immutable after creation (the region is copied).
open class UNLocationNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The region watched.
    public let region: CLRegion

    /// A trigger for crossing `region`'s boundary.
    public init(region: CLRegion, repeats: Bool) {
        self.region = region.copy() as! CLRegion
        super.init(repeats: repeats)
    }

    open override var description: String {
        "<UNLocationNotificationTrigger region: \(region.identifier), repeats: \(repeats)>"
    }
}
