import ActivityKit
import Foundation
import HeraldKit

/// A Live Activity whose pushes come through Herald: its update token, and the type's push-to-start token.
struct DeliveryAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var minutesLeft: Int
    }

    var orderID: String
}

enum DeliveryActivity {
    /// Starts an activity the provider can update (`{"target": {"activity": id}}`).
    static func start(orderID: String) throws -> Activity<DeliveryAttributes> {
        let activity = try Activity.request(
            attributes: DeliveryAttributes(orderID: orderID),
            content: ActivityContent(state: DeliveryAttributes.ContentState(minutesLeft: 30), staleDate: nil),
            pushType: .token)
        Herald.shared.trackPushTokens(of: activity)
        return activity
    }

    /// At launch: the provider can start one by push (`{"target": {"activities": {"type": "DeliveryAttributes"}}}`).
    static func allowPushToStart() {
        Herald.shared.trackPushToStartTokens(for: DeliveryAttributes.self)
    }
}
