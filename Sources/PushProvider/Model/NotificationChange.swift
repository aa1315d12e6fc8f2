import APNSCore
import Foundation
import ProviderStorage

/// The body of `PATCH /v1/notifications/{id}`: what may change before a notification is sent. Fields left out keep
/// their value; `payload` or `content` replaces the whole payload. `target` and `encrypted` are read only to say why
/// they cannot change.
struct NotificationChange: StrictInput, Sendable {
    var payload: JSONValue?
    var content: JSONValue?
    var pushType: String?
    var priority: Int?
    var expiration: Int?
    var collapseID: String?
    var sendAt: Date?
    var dailyAt: String?
    var target: JSONValue?
    var encrypted: JSONValue?
    var encryptedKey: String?
    /// With a payload (the new one or the kept one): its alert in other languages, as at creation.
    var languages: JSONValue?
    /// Its own quiet window (`{"start", "end", "action"}`), or `false` to send in the app's too.
    var quietHours: JSONValue?
    /// The category its app's frequency caps count it in; `""` for none.
    var capCategory: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case payload, content, pushType, priority, expiration, collapseID, sendAt, dailyAt, target, encrypted,
            encryptedKey, languages, quietHours, capCategory
    }

    static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }

    /// Whether it changes the payload or a header (not only the time).
    var changesContent: Bool {
        payload != nil || content != nil || languages != nil || pushType != nil || priority != nil
            || expiration != nil || collapseID != nil
    }

    /// The notification with the change applied, checked as `POST /v1/notifications` checks a new one.
    ///
    /// - Throws: ``ProviderError`` naming the field that cannot change, or the rule the new content breaks.
    func applied(to notification: StoredNotification, bundleID: String, now: Date) throws(ProviderError)
        -> StoredNotification
    {
        if target != nil {
            throw .field(
                "target",
                "the target of a notification cannot change (its deliveries were made for it): cancel it "
                    + "(DELETE /v1/notifications/\(notification.id)) and create a new one")
        }
        if encrypted != nil || encryptedKey != nil {
            throw .field(
                encrypted != nil ? "encrypted" : "encryptedKey",
                "encrypted content cannot change: cancel the notification and create a new one")
        }
        var changed = notification
        if changesContent {
            guard notification.encrypted == nil else {
                throw .conflict(
                    "notification \(notification.id) carries encrypted content, sealed per device: its content cannot "
                        + "change; cancel it and create a new one")
            }
            changed = try replanned(notification, bundleID: bundleID, now: now)
        }
        if let sendAt {
            guard sendAt > now else {
                throw .field(
                    "sendAt",
                    "must be later than now (\(now.formatted(.iso8601))): a notification sends at once "
                        + "when created without one")
            }
            changed.sendAt = sendAt
        }
        switch quietHours {
        case nil: break
        case .bool(false)?: changed.quietHours = StoredNotification.quietHoursOff
        case let value?: changed.quietHours = try QuietHours.parse(value, field: "quietHours").stored
        }
        if let capCategory {
            changed.capCategory =
                capCategory.isEmpty ? nil : try FrequencyCap.checkCategory(capCategory, field: "capCategory")
        }
        if let dailyAt {
            guard notification.dailyAt != nil else {
                throw .field(
                    "dailyAt",
                    "notification \(notification.id) is sent once, not daily: cancel it and create a daily one")
            }
            changed.dailyAt = try DailyTime(parsing: dailyAt).text
        }
        return changed
    }

    /// The notification with its payload and headers planned again from the change and what it keeps.
    private func replanned(_ notification: StoredNotification, bundleID: String, now: Date) throws(ProviderError)
        -> StoredNotification
    {
        // The target is not the notification's (it cannot change, and its deliveries exist): any device target
        // checks the payload and headers the same way.
        var members: [(key: String, value: JSONValue)] = [("target", .object(JSONObject([("all", true)])))]
        switch (payload, content) {
        case (nil, nil):
            guard let stored = try? JSONValue(parsing: notification.payload) else {
                throw .storage("notification \(notification.id)'s stored payload is not JSON")
            }
            members.append(("payload", stored))
        case (let payload?, nil): members.append(("payload", payload))
        case (nil, let content?): members.append(("content", content))
        case (.some, .some): throw .field("payload", "give either payload or content, not both")
        }
        members.append(("pushType", .string(pushType ?? notification.pushType)))
        if let priority = priority ?? notification.priority {
            members.append(("priority", .number(JSONNumber(priority))))
        }
        if let expiration = expiration ?? notification.expiration {
            members.append(("expiration", .number(JSONNumber(expiration))))
        }
        if let collapseID = collapseID ?? notification.collapseID {
            members.append(("collapseID", .string(collapseID)))
        }
        if let languages { members.append(("languages", languages)) }
        let input: NotificationInput
        do {
            input = try JSONCoding.decode(NotificationInput.self, from: JSONValue.object(JSONObject(members)).encoded())
        } catch let error as ProviderError {
            throw error
        } catch {
            throw .invalid(field: nil, message: "\(error)")
        }
        let plan = try NotificationPlan(input, bundleID: bundleID, now: now)
        var changed = notification
        changed.payload = plan.payload
        if payload != nil || content != nil || languages != nil {
            // New text: its languages and variables are the new content's (a raw payload's: those beside it).
            changed.localized = plan.localized?.stored
            changed.variables = plan.variables
        }
        changed.pushType = plan.pushType
        changed.priority = plan.priority
        changed.expiration = plan.expiration
        changed.collapseID = plan.collapseID
        return changed
    }
}
