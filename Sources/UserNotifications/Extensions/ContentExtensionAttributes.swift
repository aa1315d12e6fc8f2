public import Foundation

/// A content extension's `NSExtensionAttributes` from its Info.plist.
public struct ContentExtensionAttributes: Sendable, Hashable, Decodable {
    /// `UNNotificationExtensionCategory`: the categories the extension shows (a string or an array in the plist).
    public var categories: [String]
    /// `UNNotificationExtensionInitialContentSizeRatio`: height over width while loading.
    public var initialContentSizeRatio: Double
    /// `UNNotificationExtensionDefaultContentHidden`: show only the extension's view.
    public var defaultContentHidden: Bool
    /// `UNNotificationExtensionOverridesDefaultTitle`: the extension's title replaces the app name.
    public var overridesDefaultTitle: Bool
    /// `UNNotificationExtensionUserInteractionEnabled`: touches reach the extension (iOS 12).
    public var userInteractionEnabled: Bool

    public init(
        categories: [String],
        initialContentSizeRatio: Double = 1,
        defaultContentHidden: Bool = false,
        overridesDefaultTitle: Bool = false,
        userInteractionEnabled: Bool = false
    ) {
        self.categories = categories
        self.initialContentSizeRatio = initialContentSizeRatio
        self.defaultContentHidden = defaultContentHidden
        self.overridesDefaultTitle = overridesDefaultTitle
        self.userInteractionEnabled = userInteractionEnabled
    }

    enum CodingKeys: String, CodingKey {
        case categories = "UNNotificationExtensionCategory"
        case initialContentSizeRatio = "UNNotificationExtensionInitialContentSizeRatio"
        case defaultContentHidden = "UNNotificationExtensionDefaultContentHidden"
        case overridesDefaultTitle = "UNNotificationExtensionOverridesDefaultTitle"
        case userInteractionEnabled = "UNNotificationExtensionUserInteractionEnabled"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let single = try? container.decode(String.self, forKey: .categories) {
            categories = [single]
        } else {
            categories = try container.decode([String].self, forKey: .categories)
        }
        initialContentSizeRatio = try container.decode(Double.self, forKey: .initialContentSizeRatio)
        defaultContentHidden = try container.decodeIfPresent(Bool.self, forKey: .defaultContentHidden) ?? false
        overridesDefaultTitle = try container.decodeIfPresent(Bool.self, forKey: .overridesDefaultTitle) ?? false
        userInteractionEnabled = try container.decodeIfPresent(Bool.self, forKey: .userInteractionEnabled) ?? false
    }

    /// Reads the attributes from an Info.plist (the `NSExtension` / `NSExtensionAttributes` dictionary, or the
    /// attributes dictionary itself).
    ///
    /// - Throws: `DecodingError` when the category or the size ratio is missing.
    public init(infoPlist data: Data) throws {
        struct Root: Decodable {
            struct Extension: Decodable {
                let attributes: ContentExtensionAttributes
                enum CodingKeys: String, CodingKey { case attributes = "NSExtensionAttributes" }
            }
            let NSExtension: Extension
        }
        let decoder = PropertyListDecoder()
        if let root = try? decoder.decode(Root.self, from: data) {
            self = root.NSExtension.attributes
        } else {
            self = try decoder.decode(ContentExtensionAttributes.self, from: data)
        }
    }
}
