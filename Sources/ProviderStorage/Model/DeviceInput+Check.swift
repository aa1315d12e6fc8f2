import APNSCore
import Crypto
import Foundation

extension DeviceInput {
    /// The most tags one device may carry.
    package static let maximumTagsPerDevice = 64
    /// The longest tag, in characters.
    package static let maximumTagLength = 128

    /// Checks a registration against the app it is for (its bundle ID and environment), as the provider does when
    /// it registers one: the first problem, naming its field.
    package func check(bundleID appBundleID: String, environment appEnvironment: String) throws(ProviderError) {
        _ = try NotificationTarget.checkToken(token, field: "token")
        if let replaces { _ = try NotificationTarget.checkToken(replaces, field: "replaces") }
        // PostgreSQL's text cannot hold U+0000: refused here, on either database, rather than failing the write.
        for (field, text) in [("userID", userID), ("locale", locale), ("appVersion", appVersion)] {
            try ProviderError.refuseNUL(text, field: field)
        }
        for (index, tag) in (tags ?? []).enumerated() { try ProviderError.refuseNUL(tag, field: "tags[\(index)]") }
        if let tags {
            guard tags.count <= Self.maximumTagsPerDevice else {
                throw .field(
                    "tags", "a device has at most \(Self.maximumTagsPerDevice) tags; this one has \(tags.count)")
            }
            if let long = tags.firstIndex(where: { $0.isEmpty || $0.count > Self.maximumTagLength }) {
                throw .field("tags[\(long)]", "a tag is 1 to \(Self.maximumTagLength) characters")
            }
        }
        if let userID, userID.isEmpty || userID.count > 256 {
            throw .field("userID", "a user ID is 1 to 256 characters")
        }
        if let bundleID, bundleID != appBundleID {
            throw .field("bundleID", "this key belongs to \(appBundleID), not \(bundleID)")
        }
        if let environment, APNSEnvironment(name: environment)?.rawValue != appEnvironment {
            throw .field(
                "environment",
                "the app sends to the \(appEnvironment) environment; a \(environment) token would be rejected")
        }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw .field("timeZone", "not an IANA time zone such as Asia/Shanghai: \(timeZone)")
        }
        if let key = publicKey {
            guard let data = Data(base64Encoded: key),
                (try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: data)) != nil
            else { throw .field("publicKey", "must be a 32-byte X25519 public key in base64") }
        }
    }
}
