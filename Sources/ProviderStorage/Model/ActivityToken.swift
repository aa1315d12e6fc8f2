package import Foundation

/// A Live Activity push token an app registered: the push-to-start token of an attributes type, or
/// the update token of one activity. Pushes to it go with `apns-push-type: liveactivity` to the topic
/// `<bundle ID>.push-type.liveactivity`.
package struct ActivityTokenRecord: Codable, Sendable, Hashable {
    /// The token, hex.
    package var token: String
    /// `pushToStart` (from `Activity<T>.pushToStartTokenUpdates`) or `update` (from an activity's `pushTokenUpdates`).
    package var kind: String
    /// The attributes type's name, as a push-to-start payload's `attributes-type` gives it.
    package var attributesType: String
    /// The activity's identifier, for an update token.
    package var activityID: String?
    package var userID: String?
    /// The device's own APNs token, when the app said which device the activity runs on.
    package var deviceToken: String?
    /// Priority-10 pushes sent to this token in the current hour: iOS counts them against the activity's budget
    /// (priority 5 does not count).
    package var priority10ThisHour: Int
    package var registeredAt: Date
    package var updatedAt: Date
    /// The device's app token it was reported with was retired after it was last reported (the app registered a new
    /// token, or APNs answered 410): an activity token is refreshed by `pushTokenUpdates` and sent again, so one not
    /// sent again since may no longer be the activity's.
    package var stale = false
}

/// The body of `POST /v1/activities/tokens`.
package struct ActivityTokenInput: StrictInput, Sendable {
    package var token: String
    package var kind: String
    package var attributesType: String
    package var activityID: String?
    package var userID: String?
    package var deviceToken: String?
    /// Proof from the app's server that a publishable-key registration may bind `userID`.
    package var userToken: String?

    /// Every stored property, as given.
    package init(
        token: String, kind: String, attributesType: String, activityID: String? = nil, userID: String? = nil,
        deviceToken: String? = nil, userToken: String? = nil
    ) {
        self.token = token
        self.kind = kind
        self.attributesType = attributesType
        self.activityID = activityID
        self.userID = userID
        self.deviceToken = deviceToken
        self.userToken = userToken
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case token, kind, attributesType, activityID, userID, deviceToken, userToken
    }

    package static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }

    /// The kinds of activity token.
    package enum Kind: String {
        case pushToStart, update
    }

    /// Checks the registration.
    ///
    /// - Throws: ``ProviderError`` naming the field.
    package func check() throws(ProviderError) {
        _ = try NotificationTarget.checkToken(token, field: "token")
        if let deviceToken { _ = try NotificationTarget.checkToken(deviceToken, field: "deviceToken") }
        guard let kind = Kind(rawValue: kind) else {
            throw .field("kind", "must be pushToStart or update; got \"\(kind)\"")
        }
        guard (1...256).contains(attributesType.count) else {
            throw .field("attributesType", "give the activity's attributes type, 1 to 256 characters")
        }
        switch (kind, activityID) {
        case (.update, nil):
            throw .field("activityID", "an update token belongs to one activity: give its id")
        case (.update, let id?) where !(1...256).contains(id.count):
            throw .field("activityID", "an activity ID is 1 to 256 characters")
        case (.pushToStart, _?):
            throw .field("activityID", "a push-to-start token belongs to no activity yet: leave activityID out")
        default: break
        }
        if let userID, !(1...256).contains(userID.count) {
            throw .field("userID", "a user ID is 1 to 256 characters")
        }
        try ProviderError.refuseNUL(attributesType, field: "attributesType")
        try ProviderError.refuseNUL(activityID, field: "activityID")
        try ProviderError.refuseNUL(userID, field: "userID")
    }
}
