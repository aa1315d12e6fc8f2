/// A channel's `message-storage-policy`, chosen when it is created and never changed.
public enum APNSChannelStoragePolicy: Int, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// `0`, No Message Stored: a broadcast reaches the devices connected now; a higher publishing budget. Broadcasts
    /// on it must have `apns-expiration: 0`.
    case noMessageStored = 0
    /// `1`, Most Recent Message Stored: the newest broadcast is kept (at most ``storagePeriod``, or until its
    /// `apns-expiration`) for devices that connect later.
    case mostRecentMessageStored = 1

    /// How long a Most Recent Message Stored channel keeps its message: 8 hours.
    public static let storagePeriod: Duration = .seconds(8 * 3600)

    public var description: String {
        switch self {
        case .noMessageStored: "0 (No Message Stored)"
        case .mostRecentMessageStored: "1 (Most Recent Message Stored)"
        }
    }
}
