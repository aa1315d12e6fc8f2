public import Foundation

/// Where an activity is in its life.
public enum ActivityState: String, Hashable, Sendable, Codable {
    /// Shown and updatable.
    case active
    /// Ended: shown on the lock screen until it is dismissed; no more updates.
    case ended
    /// Gone from the lock screen.
    case dismissed
    /// Active, but its content passed its stale date.
    case stale
    /// Requested and not shown yet.
    case pending
}

/// How long an ended activity stays on the lock screen.
public enum ActivityUIDismissalPolicy: Hashable, Sendable {
    /// Up to four hours after it ends (or its `dismissal-date`).
    case `default`
    /// At once.
    case immediate
    /// At a date, at most four hours after it ends.
    case after(Date)
}

/// How an activity receives its updates by push.
public enum PushType: Hashable, Sendable {
    /// A push token of its own (``Activity/pushToken``): device pushes with `apns-push-type: liveactivity`.
    case token
    /// A broadcast channel's subscription (iOS 18): every broadcast on the channel updates it.
    case channel(String)

    /// The channel of ``channel(_:)``.
    var channelID: String? {
        if case .channel(let id) = self { return id }
        return nil
    }
}

/// Why an activity could not be started.
public enum ActivityAuthorizationError: Error, Hashable, Sendable {
    /// The person turned Live Activities off for the app.
    case denied
    /// The app has as many activities as it may.
    case targetMaximumExceeded
    /// The attributes or content could not be encoded.
    case malformedActivityIdentifier
    /// A channel subscription or a token could not be set up; the text says why.
    case unsupported(String)
}

/// Whether the app may start activities.
public struct ActivityAuthorizationInfo: Sendable {
    public init() {}

    /// Whether Live Activities are on for the app.
    public var areActivitiesEnabled: Bool { ActivitySystem.shared.activitiesEnabled }

    /// Whether the app may send frequent (priority 10) updates.
    public var frequentPushesEnabled: Bool { ActivitySystem.shared.frequentPushesEnabled }
}
