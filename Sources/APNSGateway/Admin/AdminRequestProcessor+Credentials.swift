import APNSCore
import Courier
import Foundation

/// What providers authenticate and are tested with: keys, certificates, and faults injected into answers.
extension AdminRequestProcessor {
    func issueCertificate(_ body: AdminRequestBody) throws(AdminError) -> AdminResponse {
        let bundleID = try body.string("topic")
        if let problem = APNSTopic.problem(with: bundleID) { throw AdminError(400, "topic: \(problem)") }
        let environments: Set<APNSEnvironment>
        switch try body.optionalString("environment") ?? "development" {
        case "development", "sandbox": environments = [.development]
        case "production": environments = [.production]
        case "both": environments = [.development, .production]
        case let other: throw AdminError(400, "environment '\(other)' is not development, production or both")
        }
        guard let certificateAuthority else { throw AdminError(404, "this gateway issues no certificates") }
        let push = PushCertificate(bundleID: bundleID, environments: environments)
        do {
            let issued = try certificateAuthority.issuePushCertificate(push, now: now())
            return .json(
                201,
                [
                    "certificate": .string(issued.certificatePEM), "key": .string(issued.privateKeyPEM),
                    "topics": .array(push.topics.map { .string($0) }),
                    "environments": .array(environments.map(\.rawValue).sorted().map { .string($0) }),
                ])
        } catch {
            throw AdminError(500, "the certificate could not be made: \(error)")
        }
    }

    func addFault(_ body: AdminRequestBody) throws(AdminError) -> AdminResponse {
        let count = try body.optionalInt("count") ?? 1
        guard count >= 1 else { throw AdminError(400, "\"count\" must be 1 or more") }
        let token = try body.optionalString("token").map { text throws(AdminError) in try parseToken(text) }
        let channel = try body.optionalString("channel-id").map { text throws(AdminError) in try parseChannel(text) }
        guard token == nil || channel == nil else {
            throw AdminError(400, "a fault applies to a \"token\" or a \"channel-id\", not both")
        }
        let effect: InjectedFaults.Effect
        if let goAway = try body.optionalString("goaway") {
            effect = .goAway(reason: APNSReason(rawValue: goAway))
        } else {
            guard let status = try body.optionalInt("status"), (400...599).contains(status) else {
                throw AdminError(400, "the body needs \"status\" (400 to 599) and \"reason\", or \"goaway\"")
            }
            effect = .answer(status: status, reason: APNSReason(rawValue: try body.string("reason")))
        }
        faults.add(InjectedFaults.Fault(effect: effect, count: count, token: token, channel: channel))
        return .json(201, ["pending": .number(JSONNumber(faults.pending))])
    }

    func addKey(_ body: AdminRequestBody) throws(AdminError) -> AdminResponse {
        let keyID = try body.string("key-id")
        let teamID = try body.string("team-id")
        let pem = try body.string("pem")
        let topics = try body.optionalStrings("topics").map(Set.init)
        var environment: APNSEnvironment?
        if let name = try body.optionalString("environment") {
            guard let parsed = APNSEnvironment(name: name) else {
                throw AdminError(400, "environment '\(name)' is not development or production")
            }
            environment = parsed
        }
        do {
            try keys.add(pem: pem, keyID: keyID, teamID: teamID, topics: topics, environment: environment)
        } catch {
            throw AdminError(400, "\(error)")
        }
        return .json(201, ["key-id": .string(keyID), "team-id": .string(teamID)])
    }

    /// Drops every injected fault not used yet.
    func removeFaults() -> AdminResponse {
        faults.removeAll()
        return AdminResponse(status: 204, body: nil)
    }
}
