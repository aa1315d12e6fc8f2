import APNSCore
import Crypto
import Foundation
import ProviderStorage

/// Proof that the app's server vouches for a user on this device: what the publishable key (which ships inside the
/// app, so anyone has it) needs to bind a device to a user or to change a device that belongs to one.
///
/// The app's server asks for one with its API key when its user signs in (`POST /v1/users/{userID}/token`) and hands
/// it to the app, which sends it with its registration (`userToken`) or in `X-Herald-User-Token`. It is
/// `ut_<payload>.<mac>`: the payload is base64url JSON `{"app", "user", "exp"}` (exp in seconds since 1970), the mac
/// base64url HMAC-SHA256 over the payload's text under a key derived from the provider's master key for that app.
/// Nothing is stored; a token is good until it expires (30 days by default) or the master key changes.
struct UserToken {
    /// The longest life a token may be given, in seconds.
    static let maximumLifetime = 90 * 24 * 3600
    /// The life a token gets when none is asked for.
    static let defaultLifetime = 30 * 24 * 3600

    private struct Payload: Codable {
        var app: String
        var user: String
        var exp: Int
    }

    /// A token for `userID` of `appID`, good until `expires`.
    static func make(appID: String, userID: String, expires: Date, secrets: SecretBox) -> String {
        let payload = Payload(app: appID, user: userID, exp: Int(expires.timeIntervalSince1970))
        // Safety: a struct of two strings and an integer always encodes.
        let text = try! JSONEncoder().encode(payload).base64URLEncodedString
        return "ut_\(text).\(mac(text, appID: appID, secrets: secrets).base64URLEncodedString)"
    }

    /// The user a token vouches for on `appID`.
    ///
    /// - Throws: ``ProviderError/forbidden(_:)`` saying why the token is not good.
    static func user(from token: String, appID: String, secrets: SecretBox, now: Date) throws(ProviderError)
        -> String
    {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.hasPrefix("ut_"), token.utf8.count <= 2048, parts.count == 2 else {
            throw .forbidden("the user token is not one the provider made (ut_...); ask the app's server for a new one")
        }
        let text = String(parts[0].dropFirst(3))
        guard let given = Data(base64URLEncoded: String(parts[1])),
            HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: Data(text.utf8), using: key(appID, secrets))
        else {
            throw .forbidden("the user token's signature is not valid for this app; ask the app's server for a new one")
        }
        guard let json = Data(base64URLEncoded: text),
            let payload = try? JSONDecoder().decode(Payload.self, from: json),
            payload.app == appID
        else { throw .forbidden("the user token is not for this app") }
        guard Date(timeIntervalSince1970: TimeInterval(payload.exp)) > now else {
            throw .forbidden("the user token expired; ask the app's server for a new one")
        }
        return payload.user
    }

    private static func key(_ appID: String, _ secrets: SecretBox) -> SymmetricKey {
        secrets.derivedKey(for: "herald user token v1 \(appID)")
    }

    private static func mac(_ text: String, appID: String, secrets: SecretBox) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: key(appID, secrets)))
    }
}
