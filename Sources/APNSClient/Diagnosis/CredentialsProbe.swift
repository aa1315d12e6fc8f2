import APNSCore
import Foundation
import NIOCore

/// `herald doctor`'s proof that APNs accepts the credentials, with no one notified: a background push, not stored
/// (`apns-expiration: 0`), to a well-formed token that no device has. `BadDeviceToken` (or `Unregistered`) means the
/// key, team and topic passed; any other rejection says which of them is wrong.
package enum CredentialsProbe {
    package static func run(
        endpoint: APNSEndpoint, authentication: APNSClientAuthentication, topic: String, timeout: Duration
    ) async -> DoctorCheck {
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        switch await probe(
            token: token, endpoint: endpoint, authentication: authentication, topic: topic, timeout: timeout)
        {
        case .failure(let failure): return failure.check
        case .success(.accepted):
            return .passed(
                "credentials", "a push to a token no device should have was accepted: the key, team and topic work")
        case .success(.rejected(let rejection)):
            return verdict(rejection, topic: topic, endpoint: endpoint)
        }
    }

    /// What `--token`'s answer to the same background push says about the token: its environment and app.
    package static func token(
        _ token: String, endpoint: APNSEndpoint, authentication: APNSClientAuthentication, topic: String,
        timeout: Duration
    ) async -> DoctorCheck {
        let name = "device token"
        let environment =
            switch endpoint.host {
            case APNSEndpoint.production.host: "production"
            case APNSEndpoint.sandbox.host: "the sandbox"
            default: "the environment of \(endpoint.host)"
            }
        switch await probe(
            token: token, endpoint: endpoint, authentication: authentication, topic: topic, timeout: timeout)
        {
        case .failure(let failure):
            return DoctorCheck(name: name, outcome: .failed, found: failure.check.found, next: failure.check.next)
        case .success(.accepted):
            return .passed(name, "accepted for \(topic): the token is of \(environment) (its app was woken silently)")
        case .success(.rejected(let rejection)):
            let answer = "\(rejection.status.map(String.init) ?? "no answer") \(rejection.reason.rawValue)"
            switch rejection.reason.rawValue {
            case "BadDeviceToken":
                guard let other = otherAppleEnvironment(of: endpoint) else {
                    return .failed(
                        name, "answered \(answer): the token is not one of \(environment)'s",
                        next:
                            "a token from an Xcode build is a sandbox token, from TestFlight or the App Store a "
                            + "production token: send it to the other environment (--environment), or check that it "
                            + "is the app's token")
                }
                // Apple's other host says whether the token is of the other environment or of neither.
                let otherName = other.host == APNSEndpoint.production.host ? "production" : "the sandbox"
                let origin =
                    otherName == "production"
                    ? "a production token (TestFlight or the App Store)" : "a sandbox token (an Xcode build)"
                switch await probe(
                    token: token, endpoint: other, authentication: authentication, topic: topic, timeout: timeout)
                {
                case .success(.accepted):
                    return .failed(
                        name, "answered \(answer) by \(environment); \(otherName) accepted it: it is \(origin)",
                        next:
                            "send it to \(otherName) (--environment \(otherName == "production" ? "production" : "development"))"
                    )
                case .success(.rejected(let second)) where second.reason.rawValue != "BadDeviceToken":
                    return .failed(
                        name,
                        "answered \(answer) by \(environment); \(otherName) answered \(second.reason.rawValue): it is "
                            + "\(origin)",
                        next:
                            "send it to \(otherName)\(second.reason.rawValue == "Unregistered" ? ", once the app is installed again" : "")"
                    )
                default:
                    return .failed(
                        name, "answered \(answer) by both environments: the token is neither's",
                        next: "check that it is the app's token, 64 hex digits as the app got it")
                }
            case "Unregistered", "ExpiredToken":
                return .failed(
                    name, "answered \(answer): the app is no longer on that device, or the token was replaced",
                    next: "stop sending to it; the app registers a new token when it is installed again")
            case "DeviceTokenNotForTopic":
                return .failed(
                    name, "answered \(answer): the token belongs to another app than \(topic)",
                    next: "check --topic, the bundle ID of the app that registered the token")
            default:
                return .failed(name, "answered \(answer): \(rejection.message)", next: "see the credentials check")
            }
        }
    }

    /// Apple's host of the other environment, when `endpoint` is one of Apple's hosts; `nil` for any other server.
    static func otherAppleEnvironment(of endpoint: APNSEndpoint) -> APNSEndpoint? {
        var other: APNSEndpoint
        switch endpoint.host {
        case APNSEndpoint.production.host: other = .sandbox
        case APNSEndpoint.sandbox.host: other = .production
        default: return nil
        }
        other.port = endpoint.port
        other.additionalTrustRootsPEM = endpoint.additionalTrustRootsPEM
        other.connectTo = endpoint.connectTo
        return other
    }

    /// Sends the background probe to `token`: APNs' answer, or the check that says why there was none.
    private static func probe(
        token: String, endpoint: APNSEndpoint, authentication: APNSClientAuthentication, topic: String,
        timeout: Duration
    ) async -> Result<APNSResult, DoctorCheckFailure> {
        let name = "credentials"
        var configuration = APNSPushClient.Configuration(endpoint: endpoint, authentication: authentication)
        configuration.timeout = timeout
        configuration.retryPolicy = .none
        let client: APNSPushClient
        do {
            client = try APNSPushClient(configuration: configuration)
        } catch {
            return .failure(
                .init(
                    check: .failed(name, "cannot set up a client: \(error.message)", next: "check --ca-file and --cert")
                ))
        }
        let result = await send(probeTo: token, topic: topic, with: client)
        await client.shutdown()
        return result
    }

    /// The credentials and clock checks through a client already made (the provider's, whose provider token APNs
    /// already has: a new one for the probe could count as a token update).
    package static func run(client: APNSPushClient, endpoint: APNSEndpoint, topic: String) async -> [DoctorCheck] {
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        switch await send(probeTo: token, topic: topic, with: client) {
        case .failure(let failure): return [failure.check]
        case .success(.accepted):
            return [
                .passed("credentials", "a push to a token no device should have was accepted: the credentials work"),
                clockAccepted(),
            ]
        case .success(.rejected(let rejection)):
            let check = verdict(
                rejection, topic: topic, endpoint: endpoint,
                noAnswer: "the provider could not reach \(endpoint.host):\(endpoint.port): check that the name "
                    + "resolves and the port is open from the provider's machine, and that the app's CA is the one the "
                    + "server's certificate chains to (herald doctor --topic on that machine prints the DNS, TCP and "
                    + "TLS checks)")
            return check.outcome == .passed ? [check, clockAccepted()] : [check]
        }
    }

    /// The background push, not stored (`apns-expiration: 0`), to `token`.
    private static func send(probeTo token: String, topic: String, with client: APNSPushClient) async -> Result<
        APNSResult, DoctorCheckFailure
    > {
        let headers = APNSRequestHeaders(
            pushType: .background, priority: .conservePower, expiration: .immediately, topic: topic)
        let payload = ByteBuffer(string: #"{"aps":{"content-available":1}}"#)
        do {
            return .success(
                try await client.send(APNSNotification(deviceToken: token, headers: headers, payload: payload)))
        } catch {
            return .failure(
                .init(
                    check: .failed(
                        "credentials", "cannot send: \(error.message)", next: "check the key file and --auth-key")))
        }
    }

    /// A probe that could not be sent, as the check to print.
    package struct DoctorCheckFailure: Error {
        let check: DoctorCheck
    }

    /// What APNs' answer to the probe says about the credentials.
    ///
    /// - Parameters:
    ///   - rejection: APNs' answer (or the client's, when none came).
    ///   - topic: the topic the probe was sent to.
    ///   - endpoint: where it was sent.
    ///   - noAnswer: what to do when APNs did not answer at all (`herald doctor` prints connection checks before
    ///     this one; the provider's check does not).
    /// - Returns: the credentials check (or the clock check, when the answer is about the clock).
    package static func verdict(
        _ rejection: APNSRejection, topic: String, endpoint: APNSEndpoint,
        noAnswer: String = "see the connection checks above"
    ) -> DoctorCheck {
        let name = "credentials"
        let answer = "\(rejection.status.map(String.init) ?? "no answer") \(rejection.reason.rawValue)"
        let sandbox = endpoint.host == APNSEndpoint.sandbox.host
        switch rejection.reason.rawValue {
        case "BadDeviceToken", "Unregistered":
            return .passed(
                name,
                "a push to a token no device has was answered \(answer), as expected: the key, team and topic "
                    + "\(topic) are accepted")
        case "InvalidProviderToken" where rejection.message.contains("in the future"):
            return .failed(
                "clock",
                "answered \(answer): this machine's clock (\(clockReading())) is more than an hour ahead of "
                    + "APNs'; the token's iat is in APNs' future",
                next: "set this machine's clock right (timedatectl set-ntp true); the iat is UTC seconds, so the "
                    + "time zone does not matter")
        case "InvalidProviderToken":
            return .failed(
                name, "answered \(answer): the token's key ID, team ID or signature is not one APNs knows",
                next: "check the team ID (developer account: Membership), the key ID (Keys) and that the .p8 is "
                    + "that key's and not revoked\(rejection.message.isEmpty ? "" : "; APNs said: \(rejection.message)")"
            )
        case "ExpiredProviderToken":
            return .failed(
                "clock",
                "answered \(answer) to a token signed just now: this machine's clock (\(clockReading())) is "
                    + "more than an hour behind APNs'",
                next: "set this machine's clock right (timedatectl set-ntp true); the iat is UTC seconds, so the "
                    + "time zone does not matter")
        case "BadEnvironmentKeyIdInToken", "BadEnvironmentKeyInToken":
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
                return .failed(name, "no answer: \(rejection.message)", next: noAnswer)
            }
            return .failed(
                name, "answered \(answer): \(rejection.message)", next: "see APNs' reasons in docs/client.md")
        }
    }

    /// The clock check of an accepted probe: APNs took a token signed at this machine's time.
    package static func clockAccepted() -> DoctorCheck {
        .passed(
            "clock", "\(clockReading()) here is within the hour APNs allows: it accepted a token signed at that time")
    }

    /// This machine's time in UTC, as the token's `iat` reads it.
    private static func clockReading() -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date())
    }
}
