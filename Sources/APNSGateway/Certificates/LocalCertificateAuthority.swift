import APNSCore
import Crypto
package import Foundation
import SwiftASN1
import X509

/// The gateway's own certificate authority: made at first start under the data directory and kept, so clients trust
/// `ca.pem` once (`curl --cacert DIR/ca.pem`).
///
/// The server certificate names `localhost`, `127.0.0.1`, `::1` and Apple's APNs host names, so a provider pointed at
/// the gateway by `/etc/hosts` or by URL verifies it like Apple's.
package struct LocalCertificateAuthority: Sendable {
    /// The CA certificate, PEM.
    package let caCertificatePEM: String
    /// The server certificate, PEM.
    package let serverCertificatePEM: String
    /// The server's private key, PEM.
    let serverKeyPEM: String
    /// The CA's private key, PEM, for issuing provider certificates.
    let caKeyPEM: String
    /// Where `ca.pem` is.
    package let caPath: URL

    /// The host names and addresses the server certificate is valid for.
    package static let serverNames = [
        "localhost", "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com",
    ]

    /// Loads the CA and server certificate from `directory`, making and saving them on first use.
    ///
    /// - Throws: when the directory cannot be written or the saved files are unreadable.
    package static func loadOrCreate(in directory: URL, now: Date = Date()) throws -> LocalCertificateAuthority {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let files = Files(directory: directory)
        let (caCertificate, caKey) = try loadOrCreateCA(files, now: now)
        let server =
            try loadServer(files, now: now) ?? createServer(files, caCertificate: caCertificate, caKey: caKey, now: now)
        return LocalCertificateAuthority(
            caCertificatePEM: try caCertificate.serializeAsPEM().pemString,
            serverCertificatePEM: server.certificate,
            serverKeyPEM: server.key,
            caKeyPEM: caKey.pemRepresentation,
            caPath: files.ca
        )
    }

    /// A provider certificate signed by this CA, as Apple issues one for an app: the topics and environments in
    /// Apple's extensions, for TLS client authentication.
    ///
    /// - Returns: the certificate and its new private key, PEM.
    /// - Throws: when the certificate cannot be made.
    package func issuePushCertificate(_ push: PushCertificate, now: Date = Date()) throws
        -> (certificatePEM: String, privateKeyPEM: String)
    {
        let caCertificate = try Certificate(pemEncoded: caCertificatePEM)
        let caKey = try P256.Signing.PrivateKey(pemRepresentation: caKeyPEM)
        let key = P256.Signing.PrivateKey()
        let prefix =
            push.environments.contains(.production) ? "Apple Push Services" : "Apple Development IOS Push Services"
        let pushExtensions = try push.extensions()
        let certificate = try Self.certificate(
            for: key, subject: try DistinguishedName { CommonName("\(prefix): \(push.topics.first ?? "")") },
            issuer: caCertificate.subject, signedBy: caKey, days: 365, now: now,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
                for pushExtension in pushExtensions { pushExtension }
            })
        return (try certificate.serializeAsPEM().pemString + "\n", key.pemRepresentation + "\n")
    }

    private struct Files {
        let directory: URL
        var ca: URL { directory.appendingPathComponent("ca.pem") }
        var caKey: URL { directory.appendingPathComponent("ca-key.pem") }
        var server: URL { directory.appendingPathComponent("server.pem") }
        var serverKey: URL { directory.appendingPathComponent("server-key.pem") }
    }

    private static func loadOrCreateCA(_ files: Files, now: Date) throws -> (Certificate, P256.Signing.PrivateKey) {
        if let certificateText = try? String(contentsOf: files.ca, encoding: .utf8),
            let keyText = try? String(contentsOf: files.caKey, encoding: .utf8)
        {
            return (
                try Certificate(pemEncoded: certificateText), try P256.Signing.PrivateKey(pemRepresentation: keyText)
            )
        }
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("Herald local APNs CA")
            OrganizationName("Herald")
        }
        let certificate = try Self.certificate(
            for: key, subject: name, issuer: name, signedBy: key, days: 10 * 365, now: now,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey))
            })
        try write(try certificate.serializeAsPEM().pemString, to: files.ca, secret: false)
        try write(key.pemRepresentation, to: files.caKey, secret: true)
        return (certificate, key)
    }

    private static func loadServer(_ files: Files, now: Date) throws -> (certificate: String, key: String)? {
        guard let certificateText = try? String(contentsOf: files.server, encoding: .utf8),
            let keyText = try? String(contentsOf: files.serverKey, encoding: .utf8),
            let certificate = try? Certificate(pemEncoded: certificateText),
            certificate.notValidAfter > now.addingTimeInterval(86400)
        else { return nil }
        return (certificateText, keyText)
    }

    private static func createServer(
        _ files: Files,
        caCertificate: Certificate,
        caKey: P256.Signing.PrivateKey,
        now: Date
    ) throws -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        var names = serverNames.map { GeneralName.dnsName($0) }
        names.append(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])))
        names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1]))))
        let certificate = try Self.certificate(
            for: key, subject: try DistinguishedName { CommonName("localhost") }, issuer: caCertificate.subject,
            signedBy: caKey, days: 825, now: now,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            })
        let pem = try certificate.serializeAsPEM().pemString
        try write(pem, to: files.server, secret: false)
        try write(key.pemRepresentation, to: files.serverKey, secret: true)
        return (pem, key.pemRepresentation)
    }

    /// A certificate for `key`, valid from an hour before `now` for `days` days, signed with ECDSA-SHA256.
    private static func certificate(
        for key: P256.Signing.PrivateKey, subject: DistinguishedName, issuer: DistinguishedName,
        signedBy issuerKey: P256.Signing.PrivateKey, days: Int, now: Date, extensions: Certificate.Extensions
    ) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Double(days) * 86400),
            issuer: issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuerKey))
    }

    private static func write(_ text: String, to url: URL, secret: Bool) throws {
        try Data(text.utf8).write(to: url, options: .atomic)
        if secret { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path) }
    }
}
