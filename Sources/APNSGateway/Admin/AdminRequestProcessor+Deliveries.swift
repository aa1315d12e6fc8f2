package import APNSCore
import Courier
import Foundation

/// The delivery log: one notification by its `apns-id` or `apns-unique-id`, or the latest ones.
extension AdminRequestProcessor {
    func deliveries(_ query: AdminQuery) throws(AdminError) -> AdminResponse {
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
        return .json(200, json(entry))
    }

    /// `GET /admin/deliveries?after=N&limit=M`: the notifications received after sequence number N, oldest first
    /// (`herald log --follow` polls it); without `after`, the latest M.
    func recentDeliveries(_ query: AdminQuery) throws(AdminError) -> AdminResponse {
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
            guard case .object(var object) = json(entry) else { return .null }
            object.members.insert(.init(key: "sequence", value: .number(JSONNumber(sequence))), at: 0)
            return .object(object)
        }
        return .json(
            200,
            .object(JSONObject([("entries", .array(listed)), ("last", .number(JSONNumber(last)))])))
    }

    /// One notification's entry in the admin API's form, with the app its token was registered for (`bundle-id`,
    /// `environment`), so a reader that shows entries per app can tell whose they are.
    func json(_ entry: DeliveryLog.Entry) -> JSONValue {
        guard case .object(var object) = Self.json(entry) else { return .null }
        let device = entry.token.flatMap { registry.device(for: $0) }
        object.members.append(.init(key: "bundle-id", value: device.map { .string($0.bundleID) } ?? .null))
        object.members.append(
            .init(key: "environment", value: device.map { .string($0.environment.rawValue) } ?? .null))
        return .object(object)
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
}
