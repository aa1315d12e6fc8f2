import APNSClient
import APNSCore
import Crypto
import Foundation
import NIOSSL
import ProviderStorage

/// An app's APNs credentials with their secrets: what is sealed with ``SecretBox`` at rest.
enum AppCredentials: Codable, Sendable, Hashable {
    /// A `.p8` signing key.
    case token(teamID: String, keyID: String, privateKeyPEM: String)
    /// A certificate and its private key in PEM.
    case certificatePEM(String)
    /// A PKCS#12 bundle and its password.
    case pkcs12(Data, password: String?)

    /// The public summary the API shows.
    var summary: ProviderApp.AuthenticationSummary {
        switch self {
        case .token(let teamID, let keyID, let pem):
            .init(kind: "token", teamID: teamID, keyID: keyID, fingerprint: Self.fingerprint(ofKey: pem))
        case .certificatePEM, .pkcs12: .init(kind: "certificate", teamID: nil, keyID: nil, fingerprint: nil)
        }
    }

    /// `SHA256:` and 16 hex digits of the SHA-256 of the key's public key (DER); `nil` when it is no P-256 key.
    static func fingerprint(ofKey pem: String) -> String? {
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else { return nil }
        let digest = SHA256.hash(data: key.publicKey.derRepresentation)
        return "SHA256:" + digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Reads the `authentication` object of an app request and checks that the secret is usable.
    ///
    /// - Throws: ``ProviderError`` naming the field that is missing or wrong.
    init(_ input: AppInput.Authentication) throws(ProviderError) {
        switch input.kind {
        case "token":
            guard let teamID = input.teamID, teamID.count == 10 else {
                throw .field("authentication.teamID", "give the 10-character team ID from your Apple developer account")
            }
            guard let keyID = input.keyID, keyID.count == 10 else {
                throw .field("authentication.keyID", "give the 10-character key ID of the .p8 key")
            }
            guard let given = input.privateKey else {
                throw .field("authentication.privateKey", "give the .p8 key's contents (PEM)")
            }
            // A key whose line breaks or BEGIN/END lines were lost is the same key: read as it.
            let pem: String
            switch SigningKeyText.read(given) {
            case .unusable(let problem):
                throw .field("authentication.privateKey", "\(problem); give the .p8 file Apple gave you, whole")
            case .key(let read, _): pem = read
            }
            do {
                _ = try APNSProviderTokenSigner(privateKeyPEM: pem, keyID: keyID, teamID: teamID)
            } catch {
                throw .field("authentication.privateKey", "not a usable .p8 key: \(error)")
            }
            self = .token(teamID: teamID, keyID: keyID, privateKeyPEM: pem)
        case "certificate":
            if let pem = input.certificate {
                self = .certificatePEM(pem)
            } else if let base64 = input.pkcs12 {
                guard let data = Data(base64Encoded: base64) else {
                    throw .field("authentication.pkcs12", "give the .p12 file in base64")
                }
                self = .pkcs12(data, password: input.password)
            } else {
                throw .field(
                    "authentication.certificate", "give the certificate and key in PEM, or pkcs12 (base64) and password"
                )
            }
            _ = try clientAuthentication()
        default:
            throw .field("authentication.kind", "must be \"token\" or \"certificate\"")
        }
    }

    /// The client's authentication for these credentials.
    ///
    /// - Throws: ``ProviderError`` when the key or certificate cannot be read.
    func clientAuthentication() throws(ProviderError) -> APNSClientAuthentication {
        do {
            switch self {
            case .token(let teamID, let keyID, let pem):
                return .token(try APNSProviderTokenSigner(privateKeyPEM: pem, keyID: keyID, teamID: teamID))
            case .certificatePEM(let pem):
                let chain = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
                let key = try NIOSSLPrivateKey(bytes: Array(pem.utf8), format: .pem)
                return .certificate(APNSClientCertificate(chain: chain, privateKey: key))
            case .pkcs12(let data, let password):
                let bundle = try NIOSSLPKCS12Bundle(buffer: Array(data), passphrase: Array((password ?? "").utf8))
                return .certificate(
                    APNSClientCertificate(chain: bundle.certificateChain, privateKey: bundle.privateKey))
            }
        } catch {
            throw .field("authentication", "the APNs credentials cannot be read: \(error)")
        }
    }
}
