package import Foundation
import ProviderStorage

/// A WidgetKit push token an app registered: the one token of its push-updated widgets
/// (`WidgetPushInfo.token`, iOS 26) or a control's (`ControlPushHandler`, iOS 18). Pushes to it go with
/// `apns-push-type: widgets` (topic `<bundle ID>.push-type.widgets`) or `controls` (`.push-type.controls`) and
/// the payload `{"aps": {"content-changed": true}}`.
///
/// Stored beside the Live Activity tokens (the table `activity_tokens` holds every token an app has besides its
/// device token), so a `410` retires it the same way.
package struct WidgetTokenRecord: Codable, Sendable, Hashable {
    /// The token, hex.
    package var token: String
    /// `widgets` (every push-updated widget of the app) or `control` (one control).
    package var kind: String
    /// The control's kind, for a control token.
    package var control: String?
    package var userID: String?
    /// The device's own APNs token, when the app said which device it runs on.
    package var deviceToken: String?
    package var registeredAt: Date
    package var updatedAt: Date

    init(_ stored: ActivityTokenRecord) {
        token = stored.token
        kind = stored.kind
        control = stored.kind == WidgetTokenInput.Kind.control.rawValue ? stored.attributesType : nil
        userID = stored.userID
        deviceToken = stored.deviceToken
        registeredAt = stored.registeredAt
        updatedAt = stored.updatedAt
    }
}

/// The body of `POST /v1/widgets/tokens`.
struct WidgetTokenInput: StrictInput, Sendable {
    var token: String
    var kind: String
    var control: String?
    var userID: String?
    var deviceToken: String?
    /// Proof from the app's server that a publishable-key registration may bind `userID`.
    var userToken: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, kind, control, userID, deviceToken, userToken
    }

    static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }

    /// The kinds of WidgetKit token, as stored in `activity_tokens.kind`.
    enum Kind: String, CaseIterable {
        case widgets, control

        /// The name stored in `activity_tokens.attributes_type` for the app's widgets token (a control's is its kind).
        static let widgetsType = "WidgetKit"
    }

    /// The registration as the token store keeps it.
    ///
    /// - Throws: ``ProviderError`` naming the field.
    func checked() throws(ProviderError) -> ActivityTokenInput {
        let token = try NotificationTarget.checkToken(token, field: "token")
        if let deviceToken { _ = try NotificationTarget.checkToken(deviceToken, field: "deviceToken") }
        guard let kind = Kind(rawValue: kind) else {
            throw .field("kind", "must be widgets (the app's widgets token) or control; got \"\(kind)\"")
        }
        switch (kind, control) {
        case (.control, nil):
            throw .field("control", "a control token belongs to one control: give its kind")
        case (.control, let control?) where !(1...256).contains(control.count):
            throw .field("control", "a control's kind is 1 to 256 characters")
        case (.widgets, _?):
            throw .field("control", "the widgets token is the app's one token for all its widgets: leave control out")
        default: break
        }
        if let userID, !(1...256).contains(userID.count) {
            throw .field("userID", "a user ID is 1 to 256 characters")
        }
        try ProviderError.refuseNUL(control, field: "control")
        try ProviderError.refuseNUL(userID, field: "userID")
        return ActivityTokenInput(
            token: token, kind: kind.rawValue, attributesType: control ?? Kind.widgetsType, activityID: nil,
            userID: userID, deviceToken: deviceToken, userToken: userToken)
    }
}
