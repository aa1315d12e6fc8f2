public import CategoryConfig
public import UserNotifications

extension NotificationConfig {
    /// The categories to register with `UNUserNotificationCenter.setNotificationCategories(_:)`, built as an app's own
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
        let icon =
            action.systemImageName.map(UNNotificationActionIcon.init(systemImageName:))
            ?? action.templateImageName.map(UNNotificationActionIcon.init(templateImageName:))
        if let button = action.textInputButtonTitle, let placeholder = action.textInputPlaceholder {
            return UNTextInputNotificationAction(
                identifier: action.identifier, title: action.title, options: options, icon: icon,
                textInputButtonTitle: button, textInputPlaceholder: placeholder)
        }
        return UNNotificationAction(identifier: action.identifier, title: action.title, options: options, icon: icon)
    }
}
