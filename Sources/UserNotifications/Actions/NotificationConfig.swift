public import Foundation

/// Seed 003's dynamic category configuration: the categories and actions an app registers, as JSON a server can
/// change without an app release.
///
/// ```json
/// {"NotificationConfig": {
///   "UNNotificationCategory": {"seeCategory": {"identifier": "seeCategory", "actions": ["see1", "see2"], "options": 0}},
///   "UNNotificationAction": {"see1": {"identifier": "see1", "title": "I love it~", "options": 4}, ...}}}
/// ```
///
/// Options are the raw values of `UNNotificationCategoryOptions` and `UNNotificationActionOptions`. An action with
/// `textInputButtonTitle` and `textInputPlaceholder` is a text-input action. As in the seed's app code, a category's
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

        public init(
            identifier: String, title: String, options: UInt = 0, textInputButtonTitle: String? = nil,
            textInputPlaceholder: String? = nil
        ) {
            self.identifier = identifier
            self.title = title
            self.options = options
            self.textInputButtonTitle = textInputButtonTitle
            self.textInputPlaceholder = textInputPlaceholder
        }

        private enum CodingKeys: String, CodingKey {
            case identifier, title, options, textInputButtonTitle, textInputPlaceholder
        }

        /// Options default to 0 when left out.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            identifier = try container.decode(String.self, forKey: .identifier)
            title = try container.decode(String.self, forKey: .title)
            options = try container.decodeIfPresent(UInt.self, forKey: .options) ?? 0
            textInputButtonTitle = try container.decodeIfPresent(String.self, forKey: .textInputButtonTitle)
            textInputPlaceholder = try container.decodeIfPresent(String.self, forKey: .textInputPlaceholder)
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

    /// Reads the JSON: `{"NotificationConfig": {...}}` as in the seed, or the inner object alone.
    ///
    /// - Throws: ``NotificationConfigError`` saying which part is malformed.
    public init(data: Data) throws(NotificationConfigError) {
        let decoder = JSONDecoder()
        let isWrapped = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["NotificationConfig"] != nil
        do {
            if isWrapped {
                self = try decoder.decode(Wrapped.self, from: data).NotificationConfig
            } else {
                self = try decoder.decode(NotificationConfig.self, from: data)
            }
        } catch {
            throw NotificationConfigError(error)
        }
    }

    /// The JSON in the seed's form, keys sorted.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(Wrapped(NotificationConfig: self))) ?? Data()
    }

    /// The categories to register with `UNUserNotificationCenter.setNotificationCategories(_:)`, built as the seed's
    /// `createNotificationCategoryActions` builds them.
    public func makeCategories() -> Set<UNNotificationCategory> {
        Set(
            categories.values.map { category in
                UNNotificationCategory(
                    identifier: category.identifier,
                    actions: category.actions.compactMap { actions[$0].map(Self.makeAction) },
                    intentIdentifiers: [],
                    options: UNNotificationCategoryOptions(rawValue: category.options)
                )
            })
    }

    private static func makeAction(_ action: Action) -> UNNotificationAction {
        let options = UNNotificationActionOptions(rawValue: action.options)
        if let button = action.textInputButtonTitle, let placeholder = action.textInputPlaceholder {
            return UNTextInputNotificationAction(
                identifier: action.identifier, title: action.title, options: options, textInputButtonTitle: button,
                textInputPlaceholder: placeholder)
        }
        return UNNotificationAction(identifier: action.identifier, title: action.title, options: options)
    }
}

/// A `NotificationConfig` that cannot be read: what is wrong and where.
public struct NotificationConfigError: Error, Sendable, CustomStringConvertible {
    public let message: String

    init(_ error: any Error) {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            message = "\(Self.path(context.codingPath + [key])) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            message = "\(Self.path(context.codingPath)): \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context):
            message = "not JSON, or not an object: \(context.debugDescription)"
        default:
            message = "\(error)"
        }
    }

    public var description: String { message }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the configuration" : keys.map(\.stringValue).joined(separator: ".")
    }
}
