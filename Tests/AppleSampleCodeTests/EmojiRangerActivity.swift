// Written from Apple's article "Displaying live data with Live Activities" (ActivityKit) and its Emoji Rangers
// sample, as an iOS app would have it: only `Logger().log` (os, not on Linux) became `print`. It is compiled in
// Swift 5 mode, as the sample is; Herald's ActivityKit must take it unchanged (a synchronous `Activity.request`).
import ActivityKit
import Foundation

struct EmojiRanger: Codable, Hashable {
    var name: String
    var healthLevel: Double
}

struct AdventureAttributes: ActivityAttributes {
    public struct ContentState: Codable & Hashable {
        var currentHealthLevel: Double
        var eventDescription: String
    }

    var hero: EmojiRanger
}

final class AdventureViewModel {
    var activity: Activity<AdventureAttributes>?
    // The app's own plumbing (not from the article): what it sends to its server, as streams a test reads.
    let (sentTokens, sentToken) = AsyncStream.makeStream(of: String.self)
    let (sentPushToStartTokens, sentPushToStartToken) = AsyncStream.makeStream(of: String.self)
    let (seenStates, seenState) = AsyncStream.makeStream(of: ActivityState.self)

    func startAdventure(hero: EmojiRanger) {
        if ActivityAuthorizationInfo().areActivitiesEnabled {
            do {
                let adventure = AdventureAttributes(hero: hero)
                let initialState = AdventureAttributes.ContentState(
                    currentHealthLevel: hero.healthLevel,
                    eventDescription: "Adventure has begun!"
                )

                let activity = try Activity.request(
                    attributes: adventure,
                    content: .init(state: initialState, staleDate: nil),
                    pushType: .token
                )

                setup(withActivity: activity)
            } catch (let error) {
                print("Error requesting Live Activity \(error.localizedDescription).")
            }
        }
    }

    func setup(withActivity activity: Activity<AdventureAttributes>) {
        self.activity = activity

        Task {
            for await activityState in activity.activityStateUpdates {
                seenState.yield(activityState)
            }
        }

        Task {
            for await pushToken in activity.pushTokenUpdates {
                let pushTokenString = pushToken.reduce("") {
                    $0 + String(format: "%02x", $1)
                }
                print("New push token: \(pushTokenString)")
                try await self.sendPushToken(hero: activity.attributes.hero, pushTokenString: pushTokenString)
            }
        }
    }

    func observePushToStartTokens() {
        Task {
            for await pushToken in Activity<AdventureAttributes>.pushToStartTokenUpdates {
                let pushTokenString = pushToken.reduce("") {
                    $0 + String(format: "%02x", $1)
                }
                print("New push-to-start token: \(pushTokenString)")
                try await self.sendPushToStartToken(pushTokenString: pushTokenString)
            }
        }
    }

    func heroTookCriticalHit(hero: EmojiRanger) {
        Task {
            guard let activity else { return }
            let contentState = AdventureAttributes.ContentState(
                currentHealthLevel: hero.healthLevel,
                eventDescription: "\(hero.name) has taken a critical hit!"
            )

            let alertConfiguration = AlertConfiguration(
                title: "\(hero.name) has been knocked down!",
                body: "Open the app and use a potion to heal \(hero.name).",
                sound: .default
            )

            await activity.update(
                ActivityContent<AdventureAttributes.ContentState>(
                    state: contentState,
                    staleDate: Date.now + 15,
                    relevanceScore: 50
                ),
                alertConfiguration: alertConfiguration
            )
        }
    }

    func endAdventure() async {
        let finalContent = AdventureAttributes.ContentState(
            currentHealthLevel: 0,
            eventDescription: "🏁 The adventure is over! 🏁"
        )
        let dismissalPolicy: ActivityUIDismissalPolicy = .default

        for activity in Activity<AdventureAttributes>.activities {
            await activity.end(ActivityContent(state: finalContent, staleDate: nil), dismissalPolicy: dismissalPolicy)
        }
    }

    func sendPushToken(hero: EmojiRanger, pushTokenString: String) async throws {
        sentToken.yield(pushTokenString)
    }

    func sendPushToStartToken(pushTokenString: String) async throws {
        sentPushToStartToken.yield(pushTokenString)
    }
}
