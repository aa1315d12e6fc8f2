import APNSCore
import Courier
import Foundation
import NIOCore

/// Device tokens: made, invalidated, and what was stored for and delivered to each.
extension AdminRequestProcessor {
    func register(_ body: AdminRequestBody, source: SocketAddress?) throws(AdminError) -> AdminResponse {
        let topic = try body.string("topic")
        if let problem = APNSTopic.problem(with: topic) { throw AdminError(400, problem) }
        let environmentName = try body.optionalString("environment") ?? "development"
        guard let environment = APNSEnvironment(name: environmentName) else {
            throw AdminError(400, "environment '\(environmentName)' is not development or production")
        }
        let token = try body.optionalString("token").map { text throws(AdminError) in try parseToken(text) }
        if let count = try body.optionalInt("count") {
            guard (1...100_000).contains(count), token == nil else {
                throw AdminError(400, "\"count\" is 1 to 100000 new tokens, without \"token\"")
            }
            try takeTokens(count, source: source)
            var tokens: [JSONValue] = []
            var secrets: [JSONValue] = []
            tokens.reserveCapacity(count)
            secrets.reserveCapacity(count)
            do throws(GatewayDataError) {
                for registration in try registry.register(count: count, bundleID: topic, environment: environment) {
                    tokens.append(.string(registration.device.token.hex))
                    secrets.append(registration.secret.map(JSONValue.string) ?? .null)
                }
            } catch {
                throw AdminError(503, error.message)
            }
            return .json(201, ["tokens": .array(tokens), "secrets": .array(secrets)])
        }
        try takeTokens(1, source: source)
        do throws(GatewayDataError) {
            let registration = try registry.register(bundleID: topic, environment: environment, token: token)
            var answer = JSONObject([("token", .string(registration.device.token.hex))])
            if let secret = registration.secret { answer["secret"] = .string(secret) }
            return .json(201, .object(answer))
        } catch {
            throw AdminError(error.isStorageFailure ? 503 : 409, error.message)
        }
    }

    /// Takes `count` from the source's ``TokenCreationLimit``; over it, `429`, logged and counted.
    func takeTokens(_ count: Int, source: SocketAddress?) throws(AdminError) {
        guard let refusal = tokenLimit.take(count, from: source) else { return }
        refusals?.record(.tokenCreationLimit, peer: source, refusal)
        throw AdminError(429, refusal)
    }

    func invalidate(_ tokenText: String, reason: APNSReason) throws(AdminError) -> AdminResponse {
        let token = try parseToken(tokenText)
        let known: Bool
        do throws(GatewayDataError) {
            known = try registry.invalidate(token, reason: reason, at: now())
        } catch {
            throw AdminError(503, error.message)
        }
        guard known else { throw AdminError(404, "no device has token \(tokenText)") }
        store.discardAll(for: token, reason: "the token became invalid (\(reason.rawValue))")
        return AdminResponse(status: 204, body: nil)
    }

    func notifications(_ tokenText: String) throws(AdminError) -> AdminResponse {
        let token = try parseToken(tokenText)
        guard registry.device(for: token) != nil else { throw AdminError(404, "no device has token \(tokenText)") }
        let (stored, delivered) = store.notifications(for: token)
        var body = Array(#"{"stored":["#.utf8)
        body += stored.map { $0.json() }.joined(separator: Array(",".utf8))
        body += Array(#"],"delivered":["#.utf8)
        body += delivered.map {
            $0.notification.json(extra: [("delivered", .number(JSONNumber($0.deliveredAt.millisecondsSince1970)))])
        }.joined(separator: Array(",".utf8))
        body += Array("]}".utf8)
        return AdminResponse(status: 200, body: body)
    }

    func parseToken(_ text: String) throws(AdminError) -> APNSDeviceToken {
        do {
            return try APNSDeviceToken(hex: text)
        } catch {
            throw AdminError(400, "\(text) is not a device token: \(error.message)")
        }
    }
}
