public import APNSCore
import Foundation
public import NIOSSL

/// How a client proves to APNs that it may send: a provider token (JWT) signed with a `.p8` key, or a TLS client
/// certificate.
public enum APNSClientAuthentication: Sendable {
    /// Token authentication: each request carries `authorization: bearer <JWT>`, signed anew as the policy says
    /// (between 20 and 60 minutes, never sooner).
    case token(APNSProviderTokenSigner, policy: APNSProviderTokenPolicy = APNSProviderTokenPolicy())
    /// Certificate authentication: the certificate is presented in the TLS handshake; requests carry no
    /// `authorization`.
    case certificate(APNSClientCertificate)
}

/// A TLS client certificate with its private key, as Apple issues it for an app.
public struct APNSClientCertificate: Sendable {
    /// The certificate first, then any intermediates.
    public let chain: [NIOSSLCertificate]
    /// The certificate's private key.
    public let privateKey: NIOSSLPrivateKey

    public init(chain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) {
        self.chain = chain
        self.privateKey = privateKey
    }

    /// Reads a PKCS#12 (`.p12`) file, as Keychain Access exports it.
    ///
    /// - Throws: ``APNSClientError`` when the file cannot be read or the passphrase is wrong.
    public static func pkcs12(path: String, passphrase: String?) throws(APNSClientError) -> APNSClientCertificate {
        do {
            let bundle = try NIOSSLPKCS12Bundle(file: path, passphrase: Array((passphrase ?? "").utf8))
            return APNSClientCertificate(chain: bundle.certificateChain, privateKey: bundle.privateKey)
        } catch {
            throw APNSClientError(
                "cannot read the PKCS#12 file \(path): \(error); check the file and its password (--cert-password)")
        }
    }

    /// Reads PEM: the certificate (and intermediates) from `certificatePath`, the private key from `keyPath`, or from
    /// the same file when `keyPath` is `nil`.
    ///
    /// - Throws: ``APNSClientError`` when a file cannot be read or holds no certificate or key.
    public static func pem(certificatePath: String, keyPath: String? = nil, passphrase: String? = nil)
        throws(APNSClientError) -> APNSClientCertificate
    {
        let chain: [NIOSSLCertificate]
        do {
            let text = try String(contentsOfFile: certificatePath, encoding: .utf8)
            chain = try pemBlocks(in: text, kind: "CERTIFICATE").map {
                try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem)
            }
        } catch {
            throw APNSClientError("cannot read a PEM certificate from \(certificatePath): \(error)")
        }
        guard !chain.isEmpty else { throw APNSClientError("\(certificatePath) holds no PEM certificate") }
        let keyFile = keyPath ?? certificatePath
        do {
            let text = try String(contentsOfFile: keyFile, encoding: .utf8)
            guard let block = pemBlocks(in: text, kind: "PRIVATE KEY").first else {
                throw APNSClientError("no PRIVATE KEY block")
            }
            let key: NIOSSLPrivateKey
            if let passphrase {
                key = try NIOSSLPrivateKey(bytes: Array(block.utf8), format: .pem) { $0(Array(passphrase.utf8)) }
            } else {
                key = try NIOSSLPrivateKey(bytes: Array(block.utf8), format: .pem)
            }
            return APNSClientCertificate(chain: chain, privateKey: key)
        } catch {
            throw APNSClientError(
                "cannot read a PEM private key from \(keyFile): \(error); give the key's file or its password")
        }
    }
}

/// The PEM blocks of `text` whose label ends with `kind` (`CERTIFICATE`; `PRIVATE KEY` also matches
/// `EC PRIVATE KEY` and `ENCRYPTED PRIVATE KEY`), each with its BEGIN and END lines.
private func pemBlocks(in text: String, kind: String) -> [String] {
    var blocks: [String] = []
    var rest = text[...]
    while let begin = rest.range(of: "-----BEGIN "),
        let beginEnd = rest.range(of: "-----\n", range: begin.upperBound..<rest.endIndex)
    {
        let label = rest[begin.upperBound..<beginEnd.lowerBound]
        guard let end = rest.range(of: "-----END \(label)-----", range: beginEnd.upperBound..<rest.endIndex) else {
            break
        }
        if label.hasSuffix(kind) { blocks.append(String(rest[begin.lowerBound..<end.upperBound]) + "\n") }
        rest = rest[end.upperBound...]
    }
    return blocks
}
