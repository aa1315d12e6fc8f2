import Foundation

/// A channel's configuration: the body of a create request and of a read's answer,
/// `{"message-storage-policy": 0 or 1, "push-type": "LiveActivity"}`.
public struct APNSChannelConfiguration: Hashable, Sendable {
    /// Whether the channel keeps its most recent broadcast for devices that connect later.
    public var storagePolicy: APNSChannelStoragePolicy

    /// The only push type a channel has.
    public static let pushType = "LiveActivity"
    /// The body's keys.
    public enum Key {
        public static let storagePolicy = "message-storage-policy"
        public static let pushType = "push-type"
    }

    public init(storagePolicy: APNSChannelStoragePolicy) {
        self.storagePolicy = storagePolicy
    }

    /// The JSON body.
    public var json: JSONValue {
        .object(
            JSONObject([
                (Key.storagePolicy, .number(JSONNumber(storagePolicy.rawValue))),
                (Key.pushType, .string(Self.pushType)),
            ]))
    }

    /// Reads a create request's body as APNs does.
    ///
    /// - Parameter body: the request body.
    /// - Throws: ``APNSRequestRejection`` with `PayloadEmpty` (no body), `BadRequestPayload` (not a JSON object),
    ///   `BadRequestParams` (an unknown key, or a storage policy other than 0 or 1), `MissingPushType` or
    ///   `InvalidPushType`.
    public init(validating body: some Collection<UInt8>) throws(APNSRequestRejection) {
        guard !body.isEmpty else {
            throw APNSRequestRejection(
                .payloadEmpty,
                #"the body is empty; send {"message-storage-policy": 0 or 1, "push-type": "LiveActivity"}"#)
        }
        guard case .object(let object)? = try? JSONValue(parsing: Data(body)) else {
            throw APNSRequestRejection(
                .badRequestPayload,
                #"the body is not a JSON object; send {"message-storage-policy": 0 or 1, "push-type": "LiveActivity"}"#
            )
        }
        if let unknown = object.keys.first(where: { $0 != Key.storagePolicy && $0 != Key.pushType }) {
            throw APNSRequestRejection(
                .badRequestParams, "the body has '\(unknown)'; a channel has only message-storage-policy and push-type")
        }
        guard let pushType = object[Key.pushType] else {
            throw APNSRequestRejection(
                .missingPushType, #"the body has no "push-type"; the only one is "LiveActivity""#)
        }
        guard pushType.string?.lowercased() == Self.pushType.lowercased() else {
            throw APNSRequestRejection(
                .invalidPushType,
                #"push-type is \#(String(decoding: pushType.encoded(), as: UTF8.self)); the only one is "LiveActivity""#
            )
        }
        guard let value = object[Key.storagePolicy] else {
            throw APNSRequestRejection(
                .badRequestParams,
                "the body has no message-storage-policy: 0 (No Message Stored) or 1 (Most Recent Message Stored)")
        }
        guard let number = value.number?.intValue, let policy = APNSChannelStoragePolicy(rawValue: number) else {
            throw APNSRequestRejection(
                .badRequestParams,
                "message-storage-policy is \(String(decoding: value.encoded(), as: UTF8.self)); it is 0 (No Message Stored) or 1 (Most Recent "
                    + "Message Stored)")
        }
        self.init(storagePolicy: policy)
    }
}
