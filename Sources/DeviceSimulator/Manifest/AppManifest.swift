package import APNSCore
import ActivityKit
package import CategoryConfig
public import Foundation
package import UserNotifications

/// An app installed on a simulated device, as its manifest file describes it (docs/devices.md): who it is, what the
/// user answered to the authorization request, whether it is in the foreground, its categories (the
/// `NotificationConfig`), its content extension's Info.plist attributes and its service extension's steps.
public struct AppManifest: Sendable, Decodable {
    /// The app's bundle ID: its topic.
    public var bundleID: String
    /// The APNs environment its device token belongs to.
    package var environment: APNSEnvironment
    /// The user's answer to the authorization request.
    package var authorization: Authorization
    /// Whether the app is in the foreground when notifications arrive.
    package var foreground: Bool
    /// The categories and actions the app registers.
    package var notificationConfig: NotificationConfig?
    /// The content extension's `NSExtensionAttributes`, when the app has one.
    package var contentExtension: ContentExtensionAttributes?
    /// What the service extension does with a mutable notification, in order; none means the app has no service
    /// extension.
    package var serviceExtension: [ServiceExtensionStep]
    /// The Live Activity types the app has (ActivityKit attributes types): it gets a push-to-start token for each.
    package var activityTypes: [ActivityType]
    /// The kinds of the app's widgets that take WidgetKit pushes (iOS 26 `pushHandler(_:)`): the app gets one widget
    /// push token for them all, and a `widgets` push reloads every kind's timeline.
    package var widgets: [String]
    /// The kinds of the app's controls that take pushes (iOS 18 `ControlPushHandler`): each gets a push token.
    package var controls: [String]
    /// Reloads each widget kind may have in 24 hours (WidgetKit's budget: 40 to 70 for a widget seen often).
    package var widgetReloadBudget: Int
    /// Priority-10 Live Activity pushes an activity takes per rolling hour before the system throttles it (Apple
    /// publishes no number; Herald's default is 10, like the provider's warning).
    package var activityPriority10Budget: Int
    /// The Info.plist key that raises the budget (`NSSupportsLiveActivitiesFrequentUpdates`), while the person leaves
    /// frequent updates on.
    package var supportsFrequentUpdates: Bool

    /// A Live Activity type: its name (a push-to-start payload's `attributes-type`) and the attributes and content
    /// state an activity started from the device's API or terminal gets when none are given.
    package struct ActivityType: Sendable, Hashable, Decodable {
        package var name: String
        package var attributes: JSONValue?
        package var contentState: JSONValue?

        package init(name: String, attributes: JSONValue? = nil, contentState: JSONValue? = nil) {
            self.name = name
            self.attributes = attributes
            self.contentState = contentState
        }
    }

    /// The user's answer: granted or not, and the options the app asked for.
    package struct Authorization: Sendable, Hashable, Decodable {
        package var granted: Bool
        package var options: UNAuthorizationOptions

        package init(granted: Bool, options: UNAuthorizationOptions) {
            self.granted = granted
            self.options = options
        }

        private enum CodingKeys: String, CodingKey { case granted, options }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            granted = try container.decode(Bool.self, forKey: .granted)
            var options: UNAuthorizationOptions = []
            for name in try container.decodeIfPresent([String].self, forKey: .options) ?? [] {
                guard let option = Self.optionNames[name] else {
                    let known = Self.optionNames.keys.sorted().joined(separator: ", ")
                    throw DecodingError.dataCorruptedError(
                        forKey: .options, in: container, debugDescription: "'\(name)' is not one of: \(known)")
                }
                options.insert(option)
            }
            self.options = options
        }

        static let optionNames: [String: UNAuthorizationOptions] = [
            "alert": .alert, "badge": .badge, "sound": .sound, "carPlay": .carPlay, "criticalAlert": .criticalAlert,
            "provisional": .provisional, "providesAppNotificationSettings": .providesAppNotificationSettings,
            "announcement": .announcement, "timeSensitive": .timeSensitive,
        ]
    }

    private enum CodingKeys: String, CodingKey {
        case bundleID, environment, authorization, foreground, contentExtension, serviceExtension, activityTypes
        case widgets, controls, widgetReloadBudget, activityPriority10Budget
        case supportsFrequentUpdates = "NSSupportsLiveActivitiesFrequentUpdates"
        case notificationConfig = "NotificationConfig"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleID = try container.decode(String.self, forKey: .bundleID)
        if let problem = APNSTopic.problem(with: bundleID) {
            throw DecodingError.dataCorruptedError(forKey: .bundleID, in: container, debugDescription: problem)
        }
        let environmentName = try container.decodeIfPresent(String.self, forKey: .environment) ?? "development"
        guard let environment = APNSEnvironment(name: environmentName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .environment, in: container,
                debugDescription: "'\(environmentName)' is not development or production")
        }
        self.environment = environment
        authorization =
            try container.decodeIfPresent(Authorization.self, forKey: .authorization)
            ?? Authorization(granted: true, options: [.alert, .badge, .sound])
        foreground = try container.decodeIfPresent(Bool.self, forKey: .foreground) ?? false
        notificationConfig = try container.decodeIfPresent(NotificationConfig.self, forKey: .notificationConfig)
        contentExtension = try container.decodeIfPresent(ContentExtensionAttributes.self, forKey: .contentExtension)
        serviceExtension = try container.decodeIfPresent([ServiceExtensionStep].self, forKey: .serviceExtension) ?? []
        activityTypes = try container.decodeIfPresent([ActivityType].self, forKey: .activityTypes) ?? []
        if let bad = activityTypes.first(where: { !(1...256).contains($0.name.count) }) {
            throw DecodingError.dataCorruptedError(
                forKey: .activityTypes, in: container,
                debugDescription: "an activity type's name is 1 to 256 characters; got \"\(bad.name)\"")
        }
        widgets = try Self.kinds(.widgets, in: container)
        controls = try Self.kinds(.controls, in: container)
        widgetReloadBudget = try container.decodeIfPresent(Int.self, forKey: .widgetReloadBudget) ?? 70
        guard (1...1000).contains(widgetReloadBudget) else {
            throw DecodingError.dataCorruptedError(
                forKey: .widgetReloadBudget, in: container,
                debugDescription: "widgetReloadBudget is 1 to 1000 reloads a day; got \(widgetReloadBudget)")
        }
        activityPriority10Budget =
            try container.decodeIfPresent(Int.self, forKey: .activityPriority10Budget)
            ?? ActivitySystem.defaultPriority10Budget
        guard (0...10_000).contains(activityPriority10Budget) else {
            throw DecodingError.dataCorruptedError(
                forKey: .activityPriority10Budget, in: container,
                debugDescription:
                    "activityPriority10Budget is 0 to 10000 pushes an hour; got \(activityPriority10Budget)")
        }
        supportsFrequentUpdates = try container.decodeIfPresent(Bool.self, forKey: .supportsFrequentUpdates) ?? false
    }

    /// Widget or control kinds: at most 64, each 1 to 256 characters, no repeats.
    private static func kinds(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> [String] {
        let kinds = try container.decodeIfPresent([String].self, forKey: key) ?? []
        let problem: String? =
            if kinds.count > 64 {
                "at most 64 kinds; got \(kinds.count)"
            } else if let bad = kinds.first(where: { !(1...256).contains($0.count) }) {
                "a kind is 1 to 256 characters; got \"\(bad)\""
            } else if Set(kinds).count != kinds.count {
                "each kind once"
            } else {
                nil
            }
        if let problem {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: problem)
        }
        return kinds
    }

    /// Reads a manifest.
    ///
    /// - Throws: ``AppManifestError`` naming the field that is missing or wrong.
    public init(data: Data) throws(AppManifestError) {
        do {
            self = try JSONDecoder().decode(AppManifest.self, from: data)
        } catch {
            throw AppManifestError(error)
        }
    }
}
