import APNSCore
import APNSGateway
import Foundation
import TestPacing
import Testing

@Suite("Certificate (mutual TLS) authentication", .startsServers)
struct CertificateAuthenticationTests {
    @Test("POST /admin/certificates issues a provider certificate; curl pushes with it and no provider token")
    func curlWithCertificate() async throws {
        try await GatewayHarness.with { gateway, device in
            let issued = try await gateway.admin(
                "POST", "/admin/certificates", body: #"{"topic":"com.example.app","environment":"development"}"#)
            #expect(issued.status == 201)
            #expect(
                issued.json["topics"]
                    == ["com.example.app", "com.example.app.voip", "com.example.app.complication"])
            let files = try CertificateFiles(
                certificate: issued.json["certificate"]?.string ?? "", key: issued.json["key"]?.string ?? "")
            let push = try await gateway.curl(
                path: "/3/device/\(device.token.hex)", headers: ["apns-topic": "com.example.app"],
                body: #"{"aps":{"alert":"Hello"}}"#, clientCertificate: files.urls)
            #expect(push.status == 200, "\(push.body)")
            let otherTopic = try await gateway.curl(
                path: "/3/device/\(device.token.hex)", headers: ["apns-topic": "com.example.app.voip"],
                body: #"{"aps":{}}"#, clientCertificate: files.urls)
            #expect(otherTopic.status == 400)
            let noTopic = try await gateway.curl(
                path: "/3/device/\(device.token.hex)", body: #"{"aps":{"alert":"Hello"}}"#,
                clientCertificate: files.urls)
            #expect(noTopic.body.contains("MissingTopic"), "a certificate for several topics needs apns-topic")
        }
    }

    @Test("a certificate for the other environment is 403 BadCertificateEnvironment; another app's is TopicDisallowed")
    func environmentAndTopic() async throws {
        try await GatewayHarness.with { gateway, device in
            let production = try gateway.server.certificateAuthority.issuePushCertificate(
                PushCertificate(bundleID: "com.example.app", environments: [.production]))
            let files = try CertificateFiles(certificate: production.certificatePEM, key: production.privateKeyPEM)
            let wrongEnvironment = try await gateway.curl(
                path: "/3/device/\(device.token.hex)", headers: ["apns-topic": "com.example.app"],
                body: #"{"aps":{"alert":"Hello"}}"#, clientCertificate: files.urls)
            #expect(wrongEnvironment.status == 403)
            #expect(wrongEnvironment.body.contains("BadCertificateEnvironment"))

            let other = try gateway.server.certificateAuthority.issuePushCertificate(
                PushCertificate(bundleID: "com.other.app", environments: [.development, .production]))
            let otherFiles = try CertificateFiles(certificate: other.certificatePEM, key: other.privateKeyPEM)
            let disallowed = try await gateway.curl(
                path: "/3/device/\(device.token.hex)", headers: ["apns-topic": "com.example.app"],
                body: #"{"aps":{"alert":"Hello"}}"#, clientCertificate: otherFiles.urls)
            #expect(disallowed.status == 400)
            #expect(disallowed.body.contains("TopicDisallowed"))
        }
    }

    @Test("a certificate's topics and environments survive the round trip through its extensions")
    func pushCertificateRoundTrip() async throws {
        try await GatewayHarness.with { gateway, _ in
            let push = PushCertificate(bundleID: "com.example.app", environments: [.development, .production])
            let issued = try gateway.server.certificateAuthority.issuePushCertificate(push)
            #expect(try PushCertificate(pem: issued.certificatePEM) == push)
        }
    }
}

/// A certificate and key written to temporary files for curl.
struct CertificateFiles {
    let urls: (certificate: URL, key: URL)

    init(certificate: String, key: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificateURL = directory.appendingPathComponent("cert.pem")
        let keyURL = directory.appendingPathComponent("key.pem")
        try Data(certificate.utf8).write(to: certificateURL)
        try Data(key.utf8).write(to: keyURL)
        urls = (certificateURL, keyURL)
    }
}
