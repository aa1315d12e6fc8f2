package import APNSCore
package import Courier
package import Foundation

/// A channel made through the channel management API: whose it is, where, and how it stores.
package struct BroadcastChannel: Sendable, Hashable {
    /// Its `apns-channel-id`.
    package let id: APNSChannelID
    /// The app it belongs to.
    package let bundleID: String
    /// The environment it was made in; it cannot be used in the other.
    package let environment: APNSEnvironment
    /// Whether it keeps its most recent broadcast.
    package let storagePolicy: APNSChannelStoragePolicy
    /// When it was made.
    package let createdAt: Date
    /// On a Most Recent Message Stored channel: the newest broadcast, until its deadline.
    package var storedMessage: ChannelBroadcast?

    package init(
        id: APNSChannelID, bundleID: String, environment: APNSEnvironment, storagePolicy: APNSChannelStoragePolicy,
        createdAt: Date, storedMessage: ChannelBroadcast? = nil
    ) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt
        self.storedMessage = storedMessage
    }

    /// Whether this channel belongs to `bundleID` in `environment`.
    package func belongs(to bundleID: String, in environment: APNSEnvironment) -> Bool {
        self.bundleID == bundleID && self.environment == environment
    }

    /// The channel as the journal and the admin API write it.
    package var json: JSONValue {
        var fields: [(key: String, value: JSONValue)] = [
            ("channel-id", .string(id.rawValue)), ("bundle-id", .string(bundleID)),
            ("environment", .string(environment.rawValue)),
            ("message-storage-policy", .number(JSONNumber(storagePolicy.rawValue))),
            ("push-type", .string(APNSChannelConfiguration.pushType)),
            ("created", .number(JSONNumber(createdAt.millisecondsSince1970))),
        ]
        if let storedMessage, case .object(let stored)? = try? JSONValue(parsing: Data(storedMessage.json())) {
            fields.append(("stored-message", .object(stored)))
        }
        return .object(JSONObject(fields))
    }

    /// Reads the form ``json`` writes.
    ///
    /// - Throws: ``GatewayDataError`` naming what is missing or wrong.
    package init(json object: JSONObject) throws(GatewayDataError) {
        guard let id = object["channel-id"]?.string.flatMap(APNSChannelID.init(rawValue:)),
            let bundleID = object["bundle-id"]?.string,
            let environment = object["environment"]?.string.flatMap(APNSEnvironment.init(name:)),
            let policy = object["message-storage-policy"]?.number?.intValue.flatMap(
                APNSChannelStoragePolicy.init(rawValue:)),
            let created = object["created"]?.number?.intValue
        else { throw GatewayDataError("channel: a field is missing or has the wrong type") }
        var stored: ChannelBroadcast?
        if case .object(let message)? = object["stored-message"] { stored = try ChannelBroadcast(json: message) }
        self.init(
            id: id, bundleID: bundleID, environment: environment, storagePolicy: policy,
            createdAt: Date(millisecondsSince1970: created), storedMessage: stored)
    }
}
