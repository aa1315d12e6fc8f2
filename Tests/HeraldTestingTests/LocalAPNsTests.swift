import APNSClient
import APNSCore
import DeviceSimulator
import Foundation
import HeraldTesting
import TestPacing
import Testing

@Suite("HeraldTesting's local APNs", .startsServers)
struct LocalAPNsTests {
    @Test("another client can use it: its CA and key are files, the key 0600; stop removes them")
    func filesForOtherClients() async throws {
        let apns = try await LocalAPNs.start()
        #expect(apns.url == "https://127.0.0.1:\(apns.port)" && apns.port > 0)
        let pem = try String(contentsOf: apns.caFile, encoding: .utf8)
        #expect(pem == apns.caCertificatePEM)
        let key = try String(contentsOf: apns.keyFile, encoding: .utf8)
        #expect(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let mode = try FileManager.default.attributesOfItem(atPath: apns.keyFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(
            try APNSProviderTokenSigner(privateKeyPEM: key, keyID: apns.keyID, teamID: apns.teamID).keyID
                == "ABC123DEFG")
        try await apns.stop()
        #expect(!FileManager.default.fileExists(atPath: apns.keyFile.path))
    }

    @Test("a fault for a count of pushes, then the pushes are accepted again; bad fault input is refused by name")
    func faults() async throws {
        try await LocalAPNs.run { apns in
            let device = try await apns.startDevice(
                apps: [try AppManifest(data: Data(#"{"bundleID": "com.example.app"}"#.utf8))])
            let token = try device.token(for: "com.example.app")
            var configuration = try apns.clientConfiguration()
            configuration.retryPolicy = APNSRetryPolicy(maximumAttempts: 1)
            let client = try APNSPushClient(configuration: configuration)
            try apns.failNext(2, status: 503, reason: "ServiceUnavailable", token: token)
            var statuses: [Int?] = []
            for _ in 0..<3 {
                let result = try await client.send(
                    APNSNotification(
                        deviceToken: token, headers: APNSRequestHeaders(topic: "com.example.app"),
                        payload: try APNSPayload(data: Data(#"{"aps":{"alert":"hi"}}"#.utf8))))
                switch result {
                case .accepted: statuses.append(200)
                case .rejected(let rejection): statuses.append(rejection.status)
                }
            }
            #expect(statuses == [503, 503, 200])
            #expect(throws: HeraldTestingError.self) { try apns.failNext(status: 200, reason: "Fine") }
            #expect(throws: HeraldTestingError.self) {
                try apns.failNext(0, status: 500, reason: "InternalServerError")
            }
            #expect(throws: HeraldTestingError.self) { try apns.failNext(status: 500, reason: "X", token: "nothex") }
            #expect(throws: HeraldTestingError.self) { try device.token(for: "com.example.other") }
            await #expect(throws: HeraldTestingError.self) {
                try await device.next(.response, within: .milliseconds(50))
            }
            await client.shutdown()
            await device.stop()
        }
    }
}
