import Synchronization

extension UNUserNotificationCenter {
    /// Asks the person for permission. The first request prompts (the simulated person answers with
    /// ``authorizationAnswer``); later ones return the recorded answer. `.provisional` is granted without a prompt.
    public func requestAuthorization(
        options: UNAuthorizationOptions = [],
        completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        completionHandler(recordAuthorization(options), nil)
    }

    /// Asks the person for permission; returns whether it was granted.
    public func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        recordAuthorization(options)
    }

    /// The current settings.
    public func getNotificationSettings(completionHandler: @escaping @Sendable (UNNotificationSettings) -> Void) {
        completionHandler(currentSettings())
    }

    /// The current settings.
    public func notificationSettings() async -> UNNotificationSettings { currentSettings() }

    /// What the person does in Settings › Notifications › the app, which no app API can: turns the app's
    /// notifications off (`allowed: false`, the status becomes denied) or on again (authorized with the options the
    /// app asked for), and its alerts off or on. A host (a simulated device) calls it; iOS apps cannot.
    public func changeSettingsAsThePerson(allowed: Bool? = nil, alerts: Bool? = nil) {
        state.withLock { state in
            if let allowed {
                state.status = allowed ? .authorized : .denied
                if allowed, state.granted.isEmpty { state.granted = [.alert, .badge, .sound] }
            }
            if let alerts {
                if alerts { state.granted.insert(.alert) } else { state.granted.remove(.alert) }
            }
        }
    }

    func currentSettings() -> UNNotificationSettings {
        state.withLock { UNNotificationSettings(status: $0.status, granted: $0.granted) }
    }

    var isAuthorized: Bool {
        state.withLock { [.authorized, .provisional, .ephemeral].contains($0.status) }
    }

    private func recordAuthorization(_ options: UNAuthorizationOptions) -> Bool {
        state.withLock { state in
            switch state.status {
            case .notDetermined where options.contains(.provisional):
                state.status = .provisional
                state.granted = options
                return true
            case .notDetermined, .provisional:
                if state.answer.granted {
                    state.status = .authorized
                    state.granted = state.answer.options.map { $0.intersection(options) } ?? options
                } else if state.status == .notDetermined {
                    state.status = .denied
                }
                return state.answer.granted
            case .authorized, .ephemeral:
                return true
            case .denied:
                return false
            }
        }
    }
}

extension UNUserNotificationCenter {
    /// Registers the app's categories, replacing those registered before.
    public func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        state.withLock { $0.categories = categories }
    }

    /// The registered categories.
    public func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void)
    {
        completionHandler(state.withLock { $0.categories })
    }

    /// The registered categories.
    public func notificationCategories() async -> Set<UNNotificationCategory> { state.withLock { $0.categories } }

    /// The registered category with `identifier`.
    public func category(withIdentifier identifier: String) -> UNNotificationCategory? {
        state.withLock { $0.categories.first { $0.identifier == identifier } }
    }

    /// Sets the number on the app's icon; 0 removes it.
    ///
    /// - Throws: ``UNError`` `badgeInputInvalid` for a negative count.
    public func setBadgeCount(_ newBadgeCount: Int) async throws {
        guard newBadgeCount >= 0 else { throw UNError(.badgeInputInvalid, "a badge count is 0 or more") }
        state.withLock { $0.badge = newBadgeCount }
    }

    /// Sets the number on the app's icon; 0 removes it.
    public func setBadgeCount(
        _ newBadgeCount: Int, withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        guard newBadgeCount >= 0 else {
            completionHandler?(UNError(.badgeInputInvalid, "a badge count is 0 or more"))
            return
        }
        state.withLock { $0.badge = newBadgeCount }
        completionHandler?(nil)
    }
}
