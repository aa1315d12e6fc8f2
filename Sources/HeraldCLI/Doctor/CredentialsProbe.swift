import APNSClient
import APNSCore
import Foundation
import NIOCore

/// `herald doctor`'s proof that APNs accepts the credentials, with no one notified: a background push, not stored
/// (`apns-expiration: 0`), to a well-formed token that no device has. `BadDeviceToken` (or `Unregistered`) means the
/// key, team and topic passed; any other rejection says which of them is wrong.
enum CredentialsProbe {
    static func run(
        endpoint: APNSEndpoint, authentication: APNSClientAuthentication, topic: String, timeout: Duration
    ) async -> DoctorCheck {
        let name = "credentials"
        var configuration = APNSPushClient.Configuration(endpoint: endpoint, authentication: authentication)
        configuration.timeout = timeout
        configuration.retryPolicy = .none
        let client: APNSPushClient
        do {
            client = try APNSPushClient(configuration: configuration)
        } catch {
            return .failed(name, "cannot set up a client: \(error.message)", next: "check --ca-file and --cert")
        }
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let headers = APNSRequestHeaders(
            pushType: .background, priority: .conservePower, expiration: .immediately, topic: topic)
        let payload = ByteBuffer(string: #"{"aps":{"content-available":1}}"#)
        let result: APNSResult
        do {
            result = try await client.send(APNSNotification(deviceToken: token, headers: headers, payload: payload))
        } catch {
            await client.shutdown()
            return .failed(name, "cannot send: \(error.message)", next: "check the key file and --auth-key")
        }
        await client.shutdown()
        switch result {
        case .accepted:
            return .passed(name, "a push to a token no device should have was accepted: the key, team and topic work")
        case .rejected(let rejection):
            return verdict(rejection, topic: topic, endpoint: endpoint)
        }
    }

    /// What APNs' answer to the probe says about the credentials.
    static func verdict(_ rejection: APNSRejection, topic: String, endpoint: APNSEndpoint) -> DoctorCheck {
        let name = "credentials"
        let answer = "\(rejection.status.map(String.init) ?? "no answer") \(rejection.reason.rawValue)"
        let sandbox = endpoint.host == APNSEndpoint.sandbox.host
        switch rejection.reason.rawValue {
        case "BadDeviceToken", "Unregistered":
            return .passed(
                name,
                "a push to a token no device has was answered \(answer), as expected: the key, team and topic "
                    + "\(topic) are accepted")
        case "InvalidProviderToken":
            return .failed(
                name, "answered \(answer): the token's key ID, team ID or signature is not one APNs knows",
                next: "check the team ID (developer account: Membership), the key ID (Keys) and that the .p8 is "
                    + "that key's and not revoked\(rejection.message.isEmpty ? "" : "; APNs said: \(rejection.message)")"
            )
        case "ExpiredProviderToken":
            return .failed(
                name, "answered \(answer): the token's time (iat) is more than an hour from APNs' clock",
                next: "set this machine's clock right (timedatectl set-ntp true)")
        case "BadEnvironmentKeyInToken":
            return .failed(
                name, "answered \(answer): the key is limited to the other environment",
                next: "send to \(sandbox ? "production (--environment production)" : "the sandbox") or make a key "
                    + "for both environments")
        case "TopicDisallowed", "BadTopic", "DeviceTokenNotForTopic":
            return .failed(
                name, "answered \(answer): this key or certificate may not send to \(topic)",
                next: "check --topic (the app's bundle ID) and that the key belongs to the team of that app")
        case "MissingTopic":
            return .failed(name, "answered \(answer)", next: "give --topic, the app's bundle ID")
        case "TooManyProviderTokenUpdates":
            return .failed(
                name, "answered \(answer): the provider token changed too often",
                next: "sign a token at most every 20 minutes and reuse it; wait a few minutes and try again")
        case "BadCertificate", "BadCertificateEnvironment", "MissingProviderToken":
            return .failed(
                name, "answered \(answer)",
                next: "the certificate is not an APNs certificate for this environment, or none was given")
        default:
            if rejection.status == nil {
                return .failed(name, "no answer: \(rejection.message)", next: "see the connection checks above")
            }
            return .failed(
                name, "answered \(answer): \(rejection.message)", next: "see APNs' reasons in docs/client.md")
        }
    }
}
