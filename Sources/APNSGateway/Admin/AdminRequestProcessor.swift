package import APNSCore
import Courier
package import Foundation
package import NIOCore

/// The admin API (JSON over HTTPS, HTTP/2 and HTTP/1.1, on the gateway's port); docs/gateway.md describes it. Every
/// route needs the admin credential (`Authorization: Bearer <DATA/admin-token>`); without it the answer is 401.
///
/// - `POST /admin/devices` `{"topic", "environment", "token"?}` → `201 {"token", "secret"?}` (the device secret a
///   courier `register` proves, for a token made now); with `"count": N` (at most 100,000) → `201 {"tokens": [...],
///   "secrets": [...]}`: N new tokens at once, for load tests; over the source address's
///   ``TokenCreationLimit``, `429`
/// - `DELETE /admin/devices/<token>` → `204`; later pushes get `410 Unregistered` with this time
/// - `POST /admin/devices/<token>/expire` → `204`; later pushes get `410 ExpiredToken`
/// - `GET /admin/devices/<token>/notifications` → `{"stored": [...], "delivered": [...]}`
/// - `GET /admin/deliveries?apns-id=<id>` or `?apns-unique-id=<id>` → the delivery log entry
/// - `POST /admin/keys` `{"team-id", "key-id", "pem", "topics"?, "environment"?}` → `201`
/// - `POST /admin/certificates` `{"topic", "environment"?}` → `201 {"certificate", "key", "topics", "environments"}`
/// - `POST /admin/faults` `{"status", "reason", "count"?, "token"?}` or `{"goaway", "count"?, "token"?}` → `201`
///   (`"channel-id"` instead of `"token"`: only broadcasts on that channel); `DELETE /admin/faults` → `204`
/// - `POST /admin/apps/<bundle ID>/broadcast` `{"enabled", "environment"?}` → `200`: switches broadcast on or off
///   (off: `FeatureNotEnabled`)
/// - `GET /admin/channels?bundle-id=&environment=` → `{"channels": [...]}` with subscriber counts
/// - `GET /admin/broadcasts?channel-id=` → `{"broadcasts": [...]}`: the latest broadcasts, their reach and
///   acknowledgement times
/// - `GET /admin/refusals` → `{"refusals": {"admin": n, "courier-message": n, ...}}`: what the gateway refused since it
///   started, by kind (each is also logged with the peer and why)
package struct AdminRequestProcessor: Sendable {
    let registry: DeviceRegistry
    let store: NotificationStore
    let channels: ChannelRegistry
    let keys: ProviderKeys
    let faults: InjectedFaults
    let credential: AdminCredential
    /// Issues provider certificates; `nil` where none can be issued (tests of the processor alone).
    let certificateAuthority: LocalCertificateAuthority?
    /// The refusals to report; `nil` in tests of the processor alone.
    let refusals: GatewayRefusals?
    /// How many tokens `POST /admin/devices` may create per source address.
    let tokenLimit: TokenCreationLimit
    let now: @Sendable () -> Date

    package init(
        registry: DeviceRegistry, store: NotificationStore, channels: ChannelRegistry = ChannelRegistry(),
        keys: ProviderKeys, faults: InjectedFaults, credential: AdminCredential,
        certificateAuthority: LocalCertificateAuthority?, refusals: GatewayRefusals? = nil,
        tokenLimit: TokenCreationLimit = TokenCreationLimit(perMinute: .max), now: @escaping @Sendable () -> Date
    ) {
        self.registry = registry
        self.store = store
        self.channels = channels
        self.keys = keys
        self.faults = faults
        self.credential = credential
        self.certificateAuthority = certificateAuthority
        self.refusals = refusals
        self.tokenLimit = tokenLimit
        self.now = now
    }

    /// Answers one admin request from `source` (the peer's address, which ``tokenLimit`` counts by).
    package func process(
        method: String?, path fullPath: String, body: [UInt8], authorization: String?, source: SocketAddress?
    ) -> AdminResponse {
        if let refusal = credential.refusal(authorization: authorization) { return .error(401, refusal) }
        let parts = fullPath.split(separator: "?", maxSplits: 1)
        let path = parts.first.map(String.init) ?? ""
        let query = parts.count > 1 ? AdminQuery(String(parts[1])) : AdminQuery("")
        let segments = path.split(separator: "/").map(String.init)
        do throws(AdminError) {
            return try route(method ?? "", segments, body: body, query: query, source: source)
        } catch {
            return .error(error.status, error.message)
        }
    }

    private func route(
        _ method: String, _ segments: [String], body: [UInt8], query: AdminQuery, source: SocketAddress?
    ) throws(AdminError) -> AdminResponse {
        let path = "/" + segments.joined(separator: "/")
        let resource = segments.dropFirst().first
        switch (method, resource, segments.count) {
        case ("POST", "devices", 2): return try register(AdminRequestBody(body), source: source)
        case ("DELETE", "devices", 3): return try invalidate(segments[2], reason: .unregistered)
        case ("POST", "devices", 4) where segments[3] == "expire":
            return try invalidate(segments[2], reason: .expiredToken)
        case ("GET", "devices", 4) where segments[3] == "notifications": return try notifications(segments[2])
        case ("GET", "deliveries", 2): return try deliveries(query)
        case ("POST", "keys", 2): return try addKey(AdminRequestBody(body))
        case ("POST", "faults", 2): return try addFault(AdminRequestBody(body))
        case ("POST", "certificates", 2): return try issueCertificate(AdminRequestBody(body))
        case ("POST", "apps", 4) where segments[3] == "broadcast":
            return try switchBroadcast(segments[2], AdminRequestBody(body))
        case ("GET", "channels", 2): return try listChannels(query)
        case ("GET", "broadcasts", 2): return try listBroadcasts(query)
        case ("GET", "refusals", 2):
            let counts = GatewayRefusals.Kind.allCases.map { kind in
                (key: kind.rawValue, value: JSONValue.number(JSONNumber(refusals?.count(kind) ?? 0)))
            }
            return .json(200, ["refusals": .object(JSONObject(counts))])
        case ("DELETE", "faults", 2):
            faults.removeAll()
            return AdminResponse(status: 204, body: nil)
        case (_, "devices", 2...4), (_, "deliveries", 2), (_, "keys", 2), (_, "faults", 2), (_, "certificates", 2),
            (_, "apps", 4), (_, "channels", 2), (_, "broadcasts", 2), (_, "refusals", 2):
            throw AdminError(405, "\(method) is not allowed on \(path); see docs/gateway.md")
        default:
            throw AdminError(404, "no admin endpoint \(path); see docs/gateway.md")
        }
    }

    private func register(_ body: AdminRequestBody, source: SocketAddress?) throws(AdminError) -> AdminResponse {
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
            for _ in 0..<count {
                do throws(GatewayDataError) {
                    let registration = try registry.register(bundleID: topic, environment: environment)
                    tokens.append(.string(registration.device.token.hex))
                    secrets.append(registration.secret.map(JSONValue.string) ?? .null)
                } catch {
                    throw AdminError(error.isStorageFailure ? 503 : 409, error.message)
                }
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
    private func takeTokens(_ count: Int, source: SocketAddress?) throws(AdminError) {
        guard let refusal = tokenLimit.take(count, from: source) else { return }
        refusals?.record(.tokenCreationLimit, peer: source, refusal)
        throw AdminError(429, refusal)
    }

    private func invalidate(_ tokenText: String, reason: APNSReason) throws(AdminError) -> AdminResponse {
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

    private func notifications(_ tokenText: String) throws(AdminError) -> AdminResponse {
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

    private func deliveries(_ query: AdminQuery) throws(AdminError) -> AdminResponse {
        let entry: DeliveryLog.Entry?
        if let text = query["apns-id"] {
            guard let id = UUID(uuidString: text) else { throw AdminError(400, "apns-id \(text) is not a UUID") }
            entry = store.log.entry(apnsID: id)
        } else if let text = query["apns-unique-id"] {
            guard let id = UUID(uuidString: text) else { throw AdminError(400, "apns-unique-id \(text) is not a UUID") }
            entry = store.log.entry(uniqueID: id)
        } else {
            return try recentDeliveries(query)
        }
        guard let entry else { throw AdminError(404, "the delivery log has no such notification") }
        return .json(200, Self.json(entry))
    }

    /// `GET /admin/deliveries?after=N&limit=M`: the notifications received after sequence number N, oldest first
    /// (`herald log --follow` polls it); without `after`, the latest M.
    private func recentDeliveries(_ query: AdminQuery) throws(AdminError) -> AdminResponse {
        guard let limit = Int(query["limit"] ?? "100"), (1...1000).contains(limit) else {
            throw AdminError(400, "limit is 1 to 1000")
        }
        guard let after = query["after"].map({ Int($0) }) ?? max(-1, store.log.lastSequence - limit), after >= -1 else {
            throw AdminError(
                400,
                "after is a sequence number (the last one seen), or -1 for the oldest kept; leave it out for the latest"
            )
        }
        let (entries, last) = store.log.entries(after: after, limit: limit)
        let listed: [JSONValue] = entries.map { sequence, entry in
            guard case .object(var object) = Self.json(entry) else { return .null }
            object.members.insert(.init(key: "sequence", value: .number(JSONNumber(sequence))), at: 0)
            return .object(object)
        }
        return .json(
            200,
            .object(JSONObject([("entries", .array(listed)), ("last", .number(JSONNumber(last)))])))
    }

    /// One notification's entry in the admin API's form.
    package static func json(_ entry: DeliveryLog.Entry) -> JSONValue {
        let events: [JSONValue] = entry.events.map { event in
            .object(
                JSONObject([
                    ("event", .string(event.kind.rawValue)),
                    ("time", .number(JSONNumber(event.time.millisecondsSince1970))),
                    ("detail", event.detail.map(JSONValue.string) ?? .null),
                    ("replaced-by", event.replacedBy.map { .string($0.lowercasedString) } ?? .null),
                ]))
        }
        return .object(
            JSONObject([
                ("apns-id", .string(entry.apnsID.lowercasedString)),
                ("apns-unique-id", entry.uniqueID.map { .string($0.lowercasedString) } ?? .null),
                ("token", entry.token.map { .string($0.hex) } ?? .null),
                ("events", .array(events)),
            ]))
    }

    private func issueCertificate(_ body: AdminRequestBody) throws(AdminError) -> AdminResponse {
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

    private func addFault(_ body: AdminRequestBody) throws(AdminError) -> AdminResponse {
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

    private func addKey(_ body: AdminRequestBody) throws(AdminError) -> AdminResponse {
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

    private func switchBroadcast(_ bundleID: String, _ body: AdminRequestBody) throws(AdminError) -> AdminResponse {
        if let problem = APNSTopic.problem(with: bundleID) { throw AdminError(400, problem) }
        guard let enabled = try body.optionalBool("enabled") else {
            throw AdminError(400, #"the body needs "enabled": true or false"#)
        }
        let app = BroadcastApp(bundleID: bundleID, environment: try environment(body.optionalString("environment")))
        channels.setBroadcastEnabled(enabled, for: app)
        return .json(
            200,
            [
                "bundle-id": .string(bundleID), "environment": .string(app.environment.rawValue),
                "enabled": .bool(enabled),
            ])
    }

    private func listChannels(_ query: AdminQuery) throws(AdminError) -> AdminResponse {
        let environment = try environment(query["environment"])
        let listed = channels.all
            .filter { query["bundle-id"] == nil || $0.bundleID == query["bundle-id"] }
            .filter { query["environment"] == nil || $0.environment == environment }
            .sorted { ($0.createdAt, $0.id.rawValue) < ($1.createdAt, $1.id.rawValue) }
            .prefix(10_000)
            .map { channel -> JSONValue in
                guard case .object(var object) = channel.json else { return .null }
                object["subscribers"] = .number(JSONNumber(channels.subscriberCount(channel.id)))
                return .object(object)
            }
        return .json(200, ["channels": .array(Array(listed))])
    }

    private func listBroadcasts(_ query: AdminQuery) throws(AdminError) -> AdminResponse {
        let channel = try query["channel-id"].map { text throws(AdminError) in try parseChannel(text) }
        return .json(200, ["broadcasts": .array(channels.reports(channel: channel).map(\.json))])
    }

    private func environment(_ name: String?) throws(AdminError) -> APNSEnvironment {
        guard let name else { return .development }
        guard let environment = APNSEnvironment(name: name) else {
            throw AdminError(400, "environment '\(name)' is not development or production")
        }
        return environment
    }

    private func parseChannel(_ text: String) throws(AdminError) -> APNSChannelID {
        guard let channel = APNSChannelID(rawValue: text) else {
            throw AdminError(400, APNSChannelID.problem(with: text) ?? "not a channel ID")
        }
        return channel
    }

    private func parseToken(_ text: String) throws(AdminError) -> APNSDeviceToken {
        do {
            return try APNSDeviceToken(hex: text)
        } catch {
            throw AdminError(400, "\(text) is not a device token: \(error.message)")
        }
    }
}
