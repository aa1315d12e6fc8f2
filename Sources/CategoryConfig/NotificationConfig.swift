public import Foundation

/// The dynamic category configuration (`NotificationConfig` JSON): the categories and actions an app registers, as
/// JSON a server can change without an app release.
///
/// ```json
/// {"NotificationConfig": {
///   "UNNotificationCategory": {"seeCategory": {"identifier": "seeCategory", "actions": ["see1", "see2"], "options": 0}},
///   "UNNotificationAction": {"see1": {"identifier": "see1", "title": "I love it~", "options": 4}, ...}}}
/// ```
///
/// The module depends on nothing, so the provider checks the JSON and the device builds its categories from it
/// (UserNotifications' `makeCategories()`) without either depending on the other.
///
/// Options are the raw values of `UNNotificationCategoryOptions` and `UNNotificationActionOptions`. An action with
/// `textInputButtonTitle` and `textInputPlaceholder` is a text-input action; `systemImageName` (an SF Symbol) or
/// `templateImageName` (an image of the app's bundle) gives it iOS 15's icon. As in an app's own category code, a category's
/// action key with no action behind it is skipped.
public struct NotificationConfig: Hashable, Sendable, Codable {
    /// A category: its identifier, the keys of its actions in order, and its options.
    public struct Category: Hashable, Sendable, Codable {
        public var identifier: String
        public var actions: [String]
        public var options: UInt

        public init(identifier: String, actions: [String], options: UInt = 0) {
            self.identifier = identifier
            self.actions = actions
            self.options = options
        }

        private enum CodingKeys: String, CodingKey { case identifier, actions, options }

        /// Options default to 0 and actions to none when left out.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            identifier = try container.decode(String.self, forKey: .identifier)
            actions = try container.decodeIfPresent([String].self, forKey: .actions) ?? []
            options = try container.decodeIfPresent(UInt.self, forKey: .options) ?? 0
        }
    }

    /// An action: its identifier, title and options, and for a text-input action its button title and placeholder.
    public struct Action: Hashable, Sendable, Codable {
        public var identifier: String
        public var title: String
        public var options: UInt
        public var textInputButtonTitle: String?
        public var textInputPlaceholder: String?
        /// The SF Symbol beside the title (`UNNotificationActionIcon(systemImageName:)`, iOS 15).
        public var systemImageName: String?
        /// The image of the app's bundle beside the title (`UNNotificationActionIcon(templateImageName:)`, iOS 15);
        /// used when ``systemImageName`` is not given.
        public var templateImageName: String?

        public init(
            identifier: String, title: String, options: UInt = 0, textInputButtonTitle: String? = nil,
            textInputPlaceholder: String? = nil, systemImageName: String? = nil, templateImageName: String? = nil
        ) {
            self.identifier = identifier
            self.title = title
            self.options = options
            self.textInputButtonTitle = textInputButtonTitle
            self.textInputPlaceholder = textInputPlaceholder
            self.systemImageName = systemImageName
            self.templateImageName = templateImageName
        }

        private enum CodingKeys: String, CodingKey {
            case identifier, title, options, textInputButtonTitle, textInputPlaceholder, systemImageName
            case templateImageName
        }

        /// Options default to 0 when left out.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            identifier = try container.decode(String.self, forKey: .identifier)
            title = try container.decode(String.self, forKey: .title)
            options = try container.decodeIfPresent(UInt.self, forKey: .options) ?? 0
            textInputButtonTitle = try container.decodeIfPresent(String.self, forKey: .textInputButtonTitle)
            textInputPlaceholder = try container.decodeIfPresent(String.self, forKey: .textInputPlaceholder)
            systemImageName = try container.decodeIfPresent(String.self, forKey: .systemImageName)
            templateImageName = try container.decodeIfPresent(String.self, forKey: .templateImageName)
        }
    }

    /// Categories by key.
    public var categories: [String: Category]
    /// Actions by key.
    public var actions: [String: Action]

    public init(categories: [String: Category] = [:], actions: [String: Action] = [:]) {
        self.categories = categories
        self.actions = actions
    }

    private enum CodingKeys: String, CodingKey {
        case categories = "UNNotificationCategory"
        case actions = "UNNotificationAction"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        categories = try container.decodeIfPresent([String: Category].self, forKey: .categories) ?? [:]
        actions = try container.decodeIfPresent([String: Action].self, forKey: .actions) ?? [:]
    }

    private struct Wrapped: Codable {
        var NotificationConfig: NotificationConfig
    }

    /// Whether the object has a `NotificationConfig` key, whatever its value.
    private struct WrapperProbe: Decodable {
        struct Present: Decodable {
            init(from decoder: any Decoder) {}
        }
        var NotificationConfig: Present?
    }

    /// Reads the JSON: `{"NotificationConfig": {...}}` as an app serves it, or the inner object alone.
    ///
    /// - Throws: ``NotificationConfigError`` saying which part is malformed.
    public init(data: Data) throws(NotificationConfigError) {
        let decoder = JSONDecoder()
        do {
            if try decoder.decode(WrapperProbe.self, from: data).NotificationConfig != nil {
                self = try decoder.decode(Wrapped.self, from: data).NotificationConfig
            } else {
                self = try decoder.decode(NotificationConfig.self, from: data)
            }
        } catch {
            throw NotificationConfigError(error)
        }
    }

    /// The JSON in its `{"NotificationConfig": ...}` form, keys sorted.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(Wrapped(NotificationConfig: self))) ?? Data()
    }
}
