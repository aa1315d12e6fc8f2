package import Crypto
import Foundation

/// A provider token written by hand, for claims no signer would make (`"iat": 1e30`): ES256 over
/// `header.claims`, with `claimsJSON` inserted as written.
package enum HandMadeJWT {
    /// `bearer <jwt>` for key `keyID` of team `teamID`, with the `iat` value written as `iat` (any JSON number).
    package static func authorization(
        key: P256.Signing.PrivateKey, keyID: String = "ABC123DEFG", teamID: String = "DEF123GHIJ", iat: String
    ) throws -> String {
        let header = base64URL(Data(#"{"alg":"ES256","kid":"\#(keyID)"}"#.utf8))
        let claims = base64URL(Data(#"{"iss":"\#(teamID)","iat":\#(iat)}"#.utf8))
        let signature = try key.signature(for: Data("\(header).\(claims)".utf8)).rawRepresentation
        return "bearer \(header).\(claims).\(base64URL(signature))"
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
