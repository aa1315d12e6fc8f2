public import ActivityKit
import Foundation

extension Herald {
    /// Registers every push token `activity` is given, for as long as it runs: call it right after
    /// `Activity.request(..., pushType: .token)`. The task ends with the activity's token updates.
    @discardableResult
    public func trackPushTokens<Attributes: ActivityAttributes>(of activity: Activity<Attributes>) -> Task<Void, Never>
    {
        let id = activity.id
        let updates = activity.pushTokenUpdates
        return Task {
            for await token in updates {
                do throws(HeraldError) {
                    try await registerActivityToken(
                        token, kind: .update, attributesType: String(describing: Attributes.self), activityID: id)
                } catch {
                    problemLog.add(error)
                }
            }
        }
    }

    /// Registers every push-to-start token of `Attributes` (iOS 17.2), at launch: a push can then start an
    /// activity of that type.
    @available(iOS 17.2, *)
    @discardableResult
    public func trackPushToStartTokens<Attributes: ActivityAttributes>(for type: Attributes.Type) -> Task<Void, Never> {
        let updates = Activity<Attributes>.pushToStartTokenUpdates
        return Task {
            for await token in updates {
                do throws(HeraldError) {
                    try await registerActivityToken(
                        token, kind: .pushToStart, attributesType: String(describing: Attributes.self))
                } catch {
                    problemLog.add(error)
                }
            }
        }
    }
}
