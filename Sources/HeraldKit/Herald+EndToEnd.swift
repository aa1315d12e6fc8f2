package import Crypto
import Foundation
import HeraldEnvelope
public import UserNotifications

extension Herald {
    /// In the service extension: opens every end-to-end envelope in the push (a top-level object `{"v", "enc",
    /// "ct"}`) with the app's key, puts its `title`, `subtitle` and `body` in `content` and its whole object in the
    /// payload key in place of the envelope.
    ///
    /// An envelope that does not open (sealed to another or an older key, altered, an unknown version) is removed
    /// from `content` (the original alert is shown, without the secret), reported as outcome `extensionFailed`
    /// with the reason, and returned.
    ///
    /// - Returns: the problems, one per envelope that did not open (empty when all opened).
    @discardableResult
    public func openEncryptedFields(in content: UNMutableNotificationContent) -> [HeraldError] {
        let keys = content.userInfo.compactMap { key, value in
            (value as? [String: Any]).flatMap { $0["ct"] != nil && $0["enc"] != nil ? key as? String : nil }
        }
        var problems: [HeraldError] = []
        for key in keys.sorted() {
            do throws(HeraldError) {
                try openEncryptedField(key, in: content)
            } catch {
                problems.append(error)
                var userInfo = content.userInfo
                userInfo[key] = nil
                content.userInfo = userInfo
                problemLog.add(error)
                reportOutcome("extensionFailed", detail: error.description, for: content)
            }
        }
        return problems
    }

    /// Opens the envelope at payload key `key` into `content`.
    ///
    /// - Throws: ``HeraldError/endToEnd(_:)`` naming what was wrong: no envelope there, a malformed one, one that
    ///   does not open with this device's key, or one that does not hold a JSON object.
    public func openEncryptedField(_ key: String, in content: UNMutableNotificationContent) throws(HeraldError) {
        try Self.openEncryptedField(key, in: content, with: try endToEndKey())
    }

    /// Opens the envelope at payload key `key` into `content` with `privateKey` (a simulated device's service
    /// extension steps, which hold the device's key).
    package static func openEncryptedField(
        _ key: String, in content: UNMutableNotificationContent, with privateKey: Curve25519.KeyAgreement.PrivateKey
    ) throws(HeraldError) {
        guard let fields = content.userInfo[key] as? [String: Any] else {
            throw .endToEnd("the payload has no envelope object \"\(key)\"")
        }
        let plaintext: Data
        do {
            plaintext = try EndToEndEnvelope(fields: fields).open(with: privateKey)
        } catch {
            throw .endToEnd("\"\(key)\": \(error)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: plaintext) as? [String: Any] else {
            throw .endToEnd("\"\(key)\" does not hold a JSON object")
        }
        if let title = object["title"] as? String { content.title = title }
        if let subtitle = object["subtitle"] as? String { content.subtitle = subtitle }
        if let body = object["body"] as? String { content.body = body }
        var userInfo = content.userInfo
        userInfo[key] = object
        content.userInfo = userInfo
    }

    /// Keeps `key` as the app's end-to-end key (a simulated device, whose key is in its own state file).
    package func adoptEndToEndKey(_ key: Curve25519.KeyAgreement.PrivateKey) throws(HeraldError) {
        if try keyStore.load()?.rawRepresentation == key.rawRepresentation { return }
        try keyStore.save(key)
    }
}
