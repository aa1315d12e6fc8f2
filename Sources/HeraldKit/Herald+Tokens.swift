public import Foundation

/// What a Live Activity token starts or updates.
public enum ActivityTokenKind: String, Sendable {
    /// An activity's own token (`Activity.pushTokenUpdates`): pushes update or end that activity.
    case update
    /// A type's push-to-start token (`Activity.pushToStartTokenUpdates`, iOS 17.2): a push starts an activity.
    case pushToStart
}

/// What a WidgetKit push token is for.
public enum WidgetTokenKind: Sendable, Hashable {
    /// The app's widgets (`WidgetPushHandler`): a push reloads their timelines.
    case widgets
    /// One control (`ControlPushHandler`), by its kind.
    case control(String)
}

extension Herald {
    /// Registers a Live Activity token with the provider (`POST /v1/activities/tokens`), with the signed-in user
    /// and the device's token.
    ///
    /// - Parameters:
    ///   - token: the token ActivityKit handed out.
    ///   - kind: an activity's update token or a type's push-to-start token.
    ///   - attributesType: the `ActivityAttributes` type's name, as a push-to-start payload names it.
    ///   - activityID: the activity's `id`, for an update token.
    /// - Throws: ``HeraldError/badDeviceToken(_:)`` for an empty token; the provider's refusal, or
    ///   ``HeraldError/unavailable(_:)`` (register it again when the app next runs).
    public func registerActivityToken(
        _ token: Data, kind: ActivityTokenKind, attributesType: String, activityID: String? = nil
    ) async throws(HeraldError) {
        var fields: [String: Any] = ["token": Self.hex(token), "kind": kind.rawValue, "attributesType": attributesType]
        fields["activityID"] = activityID
        try await postToken("activities/tokens", fields)
    }

    /// Registers a widget or control push token with the provider (`POST /v1/widgets/tokens`).
    public func registerWidgetToken(_ token: Data, kind: WidgetTokenKind) async throws(HeraldError) {
        var fields: [String: Any] = ["token": Self.hex(token)]
        switch kind {
        case .widgets: fields["kind"] = "widgets"
        case .control(let control):
            fields["kind"] = "control"
            fields["control"] = control
        }
        try await postToken("widgets/tokens", fields)
    }

    private func postToken(_ path: String, _ fields: [String: Any]) async throws(HeraldError) {
        guard !(fields["token"] as? String ?? "").isEmpty else {
            throw .badDeviceToken("an empty token cannot be registered")
        }
        var all = fields
        let saved = savedRegistration
        all["userID"] = saved?.registration.userID
        all["userToken"] = saved?.registration.userToken
        all["deviceToken"] = saved?.token
        let body: Data
        do {
            body = try JSONSerialization.data(withJSONObject: all, options: [.sortedKeys])
        } catch {
            throw .configuration("the token registration is not JSON: \(error)")
        }
        let answer = try await connection.send("POST", path, json: body)
        if answer.status == 404 {
            throw .refused(status: 404, message: "the provider has no /v1/\(path): check the provider URL")
        }
    }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }
}
