import Foundation

/// Which API identifier each delivered notification has, and the `apns-id`s already received.
struct DeliveryRecords {
    /// One delivered notification.
    struct Record: Sendable, Hashable {
        let id: String
        let apnsID: String?
        let bundleID: String
        let requestIdentifier: String
    }

    private(set) var byID: [String: Record] = [:]
    private var idByRequest: [String: String] = [:]
    private var seenAPNSIDs: Set<UUID> = []

    /// Whether `apnsID` is new (and remembers it).
    mutating func firstSighting(of apnsID: UUID) -> Bool {
        seenAPNSIDs.insert(apnsID).inserted
    }

    /// Records a delivery; a later delivery with the same request identifier (a collapse ID) takes its place.
    mutating func add(_ record: Record) {
        let key = Self.key(record.bundleID, record.requestIdentifier)
        if let previous = idByRequest[key] { byID.removeValue(forKey: previous) }
        idByRequest[key] = record.id
        byID[record.id] = record
    }

    func id(bundleID: String, requestIdentifier: String) -> String? {
        idByRequest[Self.key(bundleID, requestIdentifier)]
    }

    private static func key(_ bundleID: String, _ requestIdentifier: String) -> String {
        bundleID + "\n" + requestIdentifier
    }
}
