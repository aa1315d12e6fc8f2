public import Crypto
public import Foundation

/// Herald's end-to-end encryption of business data in a push (docs/e2e.md): HPKE (RFC 9180) in base mode with
/// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256 and ChaCha20-Poly1305, to a key pair each device keeps per app.
///
/// The provider seals a JSON object to the device's public key and puts the envelope in a custom payload key;
/// APNs (and the gateway) see only ciphertext. The device's service extension opens it.
///
/// ```swift
/// let envelope = try EndToEndEnvelope.seal(Data(#"{"body":"secret"}"#.utf8), to: publicKey)
/// payload["secret"] = envelope.json           // {"v":1,"enc":"…","ct":"…"}
/// let plaintext = try envelope.open(with: privateKey)
/// ```
public struct EndToEndEnvelope: Sendable, Hashable {
    /// The scheme version written as `"v"`.
    public static let version = 1
    /// The HPKE `info` both sides use.
    public static let info = Data("herald-e2e-v1".utf8)
    /// The HPKE ciphersuite.
    public static let ciphersuite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly

    /// The sender's encapsulated key (32 bytes).
    public let encapsulatedKey: Data
    /// The ChaCha20-Poly1305 ciphertext with its tag.
    public let ciphertext: Data

    public init(encapsulatedKey: Data, ciphertext: Data) {
        self.encapsulatedKey = encapsulatedKey
        self.ciphertext = ciphertext
    }

    /// Encrypts `plaintext` (a JSON object's bytes, by convention) to a device's public key.
    public static func seal(
        _ plaintext: Data, to publicKey: Curve25519.KeyAgreement.PublicKey
    ) throws -> EndToEndEnvelope {
        var sender = try HPKE.Sender(recipientKey: publicKey, ciphersuite: ciphersuite, info: info)
        let ciphertext = try sender.seal(plaintext)
        return EndToEndEnvelope(encapsulatedKey: sender.encapsulatedKey, ciphertext: ciphertext)
    }

    /// Decrypts with the device's private key.
    ///
    /// - Throws: ``EndToEndEnvelopeError`` when the key does not match or the ciphertext was altered.
    public func open(with privateKey: Curve25519.KeyAgreement.PrivateKey) throws(EndToEndEnvelopeError) -> Data {
        do {
            var recipient = try HPKE.Recipient(
                privateKey: privateKey, ciphersuite: Self.ciphersuite, info: Self.info,
                encapsulatedKey: encapsulatedKey)
            return try recipient.open(ciphertext)
        } catch {
            throw EndToEndEnvelopeError(
                "the envelope does not open with this device's key (sealed to another key, or altered)")
        }
    }

    /// Reads an envelope from its payload form (a JSON object, or a dictionary from `userInfo`).
    ///
    /// - Throws: ``EndToEndEnvelopeError`` naming what is missing or wrong.
    public init(fields: [String: Any]) throws(EndToEndEnvelopeError) {
        let version = (fields["v"] as? NSNumber)?.intValue ?? (fields["v"] as? Int)
        guard version == Self.version else {
            throw EndToEndEnvelopeError("\"v\" is \(fields["v"].map { "\($0)" } ?? "missing"); only 1 is known")
        }
        guard let enc = (fields["enc"] as? String).flatMap({ Data(base64Encoded: $0) }), enc.count == 32 else {
            throw EndToEndEnvelopeError("\"enc\" is not the base64 of a 32-byte X25519 encapsulated key")
        }
        guard let ct = (fields["ct"] as? String).flatMap({ Data(base64Encoded: $0) }), ct.count >= 16 else {
            throw EndToEndEnvelopeError("\"ct\" is not the base64 of a ciphertext with its 16-byte tag")
        }
        self.init(encapsulatedKey: enc, ciphertext: ct)
    }
}

/// An envelope that cannot be read or opened.
public struct EndToEndEnvelopeError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
