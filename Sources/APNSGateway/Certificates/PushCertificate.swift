package import APNSCore
import SwiftASN1
package import X509

/// What a provider certificate allows, read from the extensions Apple puts in it: the topics in
/// 1.2.840.113635.100.6.3.6 (each followed by its kind: app, voip, complication), and the environments as
/// 1.2.840.113635.100.6.3.1 (development) and 1.2.840.113635.100.6.3.2 (production).
package struct PushCertificate: Hashable, Sendable {
    /// The topics the certificate may push to, in its order.
    package var topics: [String]
    /// The environments the certificate is for.
    package var environments: Set<APNSEnvironment>

    static let topicsOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 6]
    static let developmentOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 1]
    static let productionOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 2]

    package init(topics: [String], environments: Set<APNSEnvironment>) {
        self.topics = topics
        self.environments = environments
    }

    /// The topics of an app's certificate, as Apple issues it: the bundle ID, its VoIP and its complication topics.
    package init(bundleID: String, environments: Set<APNSEnvironment>) {
        self.init(topics: [bundleID, bundleID + ".voip", bundleID + ".complication"], environments: environments)
    }

    /// Reads a certificate's push extensions; `nil` when it has no topics or no environment (not a push certificate).
    package init?(_ certificate: Certificate) {
        var topics: [String] = []
        var environments: Set<APNSEnvironment> = []
        for item in certificate.extensions {
            switch item.oid {
            case Self.developmentOID: environments.insert(.development)
            case Self.productionOID: environments.insert(.production)
            case Self.topicsOID: topics = (try? Self.parseTopics(item.value)) ?? []
            default: break
            }
        }
        guard !topics.isEmpty, !environments.isEmpty else { return nil }
        self.init(topics: topics, environments: environments)
    }

    /// Reads a PEM certificate's push extensions; `nil` when it is not a push certificate.
    ///
    /// - Throws: when the text is not a PEM certificate.
    package init?(pem: String) throws {
        self.init(try Certificate(pemEncoded: pem))
    }

    /// Reads a DER certificate's push extensions; `nil` when it is not a push certificate.
    ///
    /// - Throws: when the bytes are not a DER certificate.
    package init?(der: [UInt8]) throws {
        self.init(try Certificate(derEncoded: der))
    }

    /// The extensions that make a certificate this push certificate.
    func extensions() throws -> [Certificate.Extension] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            for topic in topics {
                try coder.serialize(ASN1UTF8String(topic))
                let kind = topic.hasSuffix(".voip") ? "voip" : topic.hasSuffix(".complication") ? "complication" : "app"
                try coder.appendConstructedNode(identifier: .sequence) { try $0.serialize(ASN1UTF8String(kind)) }
            }
        }
        var extensions = [
            Certificate.Extension(oid: Self.topicsOID, critical: false, value: serializer.serializedBytes[...])
        ]
        let null: ArraySlice<UInt8> = [0x05, 0x00]
        if environments.contains(.development) {
            extensions.append(Certificate.Extension(oid: Self.developmentOID, critical: false, value: null))
        }
        if environments.contains(.production) {
            extensions.append(Certificate.Extension(oid: Self.productionOID, critical: false, value: null))
        }
        return extensions
    }

    private static func parseTopics(_ bytes: ArraySlice<UInt8>) throws -> [String] {
        try DER.sequence(DER.parse(Array(bytes)), identifier: .sequence) { nodes in
            var topics: [String] = []
            while let node = nodes.next() {
                if node.identifier == ASN1UTF8String.defaultIdentifier {
                    topics.append(String(try ASN1UTF8String(derEncoded: node)))
                }
            }
            return topics
        }
    }
}
