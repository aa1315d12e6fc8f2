import APNSCore
import Crypto
import Foundation

extension DeviceInput {
    /// The most tags one device may carry.
    package static let maximumTagsPerDevice = 64
    /// The longest tag, in characters.
    package static let maximumTagLength = 128
    /// The most characters of `locale`, `appVersion` and `timeZone`.
    package static let maximumShortField = 64
    /// What the publishable key may set (anyone can read it out of the app): fewer and shorter tags than the
    /// app's server may give with its API key.
    package static let maximumTagsFromDevice = 16
    package static let maximumTagLengthFromDevice = 64

    /// The stricter rules for a registration made with the publishable key (after ``check(bundleID:environment:)``).
    package func checkFromDevice() throws(ProviderError) {
        if attributes != nil {
            throw .forbidden(
                "attributes are set by the app's server with its API key, never with the publishable key (anyone can "
                    + "read it out of the app and would write into your users' notifications)")
        }
        guard let tags else { return }
        guard tags.count <= Self.maximumTagsFromDevice else {
            throw .field(
                "tags",
                "with the publishable key a device sets at most \(Self.maximumTagsFromDevice) tags (this one has "
                    + "\(tags.count)); the app's server may set up to \(Self.maximumTagsPerDevice) with its API key")
        }
        if let long = tags.firstIndex(where: { $0.count > Self.maximumTagLengthFromDevice }) {
            throw .field(
                "tags[\(long)]",
                "with the publishable key a tag is 1 to \(Self.maximumTagLengthFromDevice) characters; the app's "
                    + "server may set tags of up to \(Self.maximumTagLength) with its API key")
        }
    }

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
        try checkAttributes()
        if let userID, userID.isEmpty || userID.count > 256 {
            throw .field("userID", "a user ID is 1 to 256 characters")
        }
        for (field, text) in [("locale", locale), ("appVersion", appVersion), ("timeZone", timeZone)] {
            if let text, text.count > Self.maximumShortField {
                throw .field(
                    field, "\(field) is at most \(Self.maximumShortField) characters; this one has \(text.count)")
            }
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

    private func checkAttributes() throws(ProviderError) {
        if let attributes { try DeviceAttributes.check(attributes, of: "a device") }
    }
}
