import APNSCore
import Courier
import Foundation

/// The journal's records, as bytes: how each is written and how a journal's bytes are read back
/// (``GatewayJournal`` says what each record means).
enum JournalRecords {
    static func device(_ device: DeviceRegistry.Device) -> [UInt8] {
        var fields: [(key: String, value: JSONValue)] = [
            ("token", .string(device.token.hex)),
            ("bundle-id", .string(device.bundleID)),
            ("environment", .string(device.environment.rawValue)),
        ]
        if let digest = device.secretDigest {
            fields.append(("secret-sha256", .string(digest.data.base64EncodedString())))
        }
        if let invalidation = device.invalidation {
            fields.append(("invalid-reason", .string(invalidation.reason.rawValue)))
            fields.append(("invalid-since", .number(JSONNumber(invalidation.since.millisecondsSince1970))))
        }
        var bytes: [UInt8] = []
        JSONValue.object(JSONObject([(key: "device", value: .object(JSONObject(fields)))])).write(into: &bytes)
        return bytes
    }

    static func change(_ change: ChannelRegistry.Change, in channels: ChannelRegistry) -> [UInt8] {
        switch change {
        case .channel(let id): Self.channel(id, channels.channel(id))
        case .app(let app): Self.app(app, enabled: channels.isBroadcastEnabled(for: app))
        }
    }

    static func channel(_ id: APNSChannelID, _ channel: BroadcastChannel?) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONValue.object(JSONObject([("channel-id", .string(id.rawValue)), ("channel", channel?.json ?? .null)]))
            .write(into: &bytes)
        return bytes
    }

    static func app(_ app: BroadcastApp, enabled: Bool) -> [UInt8] {
        let fields = JSONObject([
            ("bundle-id", .string(app.bundleID)), ("environment", .string(app.environment.rawValue)),
            ("enabled", .bool(enabled)),
        ])
        var bytes: [UInt8] = []
        JSONValue.object(JSONObject([("broadcast-app", .object(fields))])).write(into: &bytes)
        return bytes
    }

    static func slot(_ token: APNSDeviceToken, _ notification: AcceptedNotification?) -> [UInt8] {
        var bytes: [UInt8] = []
        appendSlot(token, notification, to: &bytes)
        return bytes
    }

    /// Appends the slot record of `token` to `bytes`, framed (``frame(_:into:)``): the journal writes one for every
    /// stored push, so the record is written field by field into one buffer.
    ///
    /// - Returns: the framed record's size.
    @discardableResult
    static func frameSlot(_ token: APNSDeviceToken, _ notification: AcceptedNotification?, into bytes: inout [UInt8])
        -> Int
    {
        var record: [UInt8] = []
        record.reserveCapacity(384 + (notification?.payload.count ?? 0))
        appendSlot(token, notification, to: &record)
        return frame(record, into: &bytes)
    }

    private static func appendSlot(
        _ token: APNSDeviceToken, _ notification: AcceptedNotification?, to bytes: inout [UInt8]
    ) {
        bytes.append(contentsOf: #"{"slot":""#.utf8)
        bytes.append(contentsOf: token.hex.utf8)
        bytes.append(contentsOf: #"","notification":"#.utf8)
        if let notification {
            notification.appendJSON(to: &bytes)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Adds `record` to `bytes` as the journal frames it: its byte count, a newline, the record, a newline.
    ///
    /// - Returns: the framed record's size.
    @discardableResult
    static func frame(_ record: [UInt8], into bytes: inout [UInt8]) -> Int {
        let before = bytes.count
        bytes.append(contentsOf: String(record.count).utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: record)
        bytes.append(UInt8(ascii: "\n"))
        return bytes.count - before
    }

    /// The bytes ``frame(_:into:)`` writes for `record`.
    static func framedSize(_ record: [UInt8]) -> Int {
        String(record.count).utf8.count + record.count + 2
    }

    /// How much of the journal is read at a time at start: the file is streamed, never held whole (ten million
    /// devices are about 2 GB of records).
    static let readChunk = 4 << 20

    /// Reads every whole record of the journal at `url` (none when there is no file); a record cut short by a crash
    /// ends the journal.
    ///
    /// - Returns: what the records hold, the byte count of the whole records and the file's size (what is past the
    ///   whole records is a torn tail).
    static func read(contentsOf url: URL) throws -> (GatewayJournal.Recovered, whole: Int, size: Int) {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return (GatewayJournal.Recovered(), 0, 0) }
        defer { try? handle.close() }
        var reader = Reader()
        var buffer: [UInt8] = []
        var consumed = 0
        var size = 0
        var ended = false
        while !ended {
            let chunk = try handle.read(upToCount: readChunk) ?? Data()
            ended = chunk.isEmpty
            size += chunk.count
            buffer.append(contentsOf: chunk)
            var offset = 0
            while let (record, end) = nextRecord(in: buffer, from: offset) {
                guard case .object(let object) = try? JSONValue(parsing: Data(buffer[record])) else {
                    // The last record may be torn inside (its count written, its bytes not all): that ends the journal.
                    if ended && end == buffer.count { break }
                    guard end < buffer.count || ended else { break }
                    throw GatewayDataError(
                        "journal record at byte \(consumed + record.lowerBound) is not a JSON object")
                }
                try reader.add(object, at: consumed + record.lowerBound)
                offset = end
            }
            buffer.removeFirst(offset)
            consumed += offset
        }
        return (reader.recovered, consumed, size)
    }

    /// The record framed at `offset` (its bytes and where the next begins), when the buffer holds all of it.
    private static func nextRecord(in bytes: [UInt8], from offset: Int) -> (Range<Int>, end: Int)? {
        // A count is a file's number: checked against what is left before any arithmetic.
        guard let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")),
            let count = Int(String(decoding: bytes[offset..<newline], as: UTF8.self)),
            count >= 0, count < bytes.count - newline - 1, bytes[newline + 1 + count] == UInt8(ascii: "\n")
        else { return nil }
        return ((newline + 1)..<(newline + 1 + count), newline + 2 + count)
    }

    /// What the records read so far hold: the last record of a token, a channel or an app wins.
    private struct Reader {
        var devices = DeviceTable()
        var slots: [APNSDeviceToken: AcceptedNotification] = [:]
        var channels: [APNSChannelID: BroadcastChannel] = [:]
        var disabled: Set<BroadcastApp> = []

        var recovered: GatewayJournal.Recovered {
            GatewayJournal.Recovered(
                devices: devices, stored: Array(slots.values), channels: Array(channels.values),
                disabledApps: disabled)
        }

        mutating func add(_ object: JSONObject, at offset: Int) throws {
            if case .object(let device) = object["device"] {
                let parsed = try JournalRecords.device(device)
                devices[parsed.token] = parsed
            } else if let tokenText = object["slot"]?.string, let token = try? APNSDeviceToken(hex: tokenText) {
                if case .object(let notification) = object["notification"] {
                    slots[token] = try AcceptedNotification(json: notification)
                } else {
                    slots[token] = nil
                }
            } else if let idText = object["channel-id"]?.string, let id = APNSChannelID(rawValue: idText) {
                if case .object(let channel) = object["channel"] {
                    channels[id] = try BroadcastChannel(json: channel)
                } else {
                    channels[id] = nil
                }
            } else if case .object(let app) = object["broadcast-app"], let bundleID = app["bundle-id"]?.string,
                let environment = app["environment"]?.string.flatMap(APNSEnvironment.init(name:))
            {
                let key = BroadcastApp(bundleID: bundleID, environment: environment)
                if app["enabled"] == .bool(false) { disabled.insert(key) } else { disabled.remove(key) }
            } else {
                throw GatewayDataError(
                    "journal record at byte \(offset) is not a device, a slot, a channel or a broadcast app")
            }
        }
    }

    private static func device(_ object: JSONObject) throws -> DeviceRegistry.Device {
        guard let tokenText = object["token"]?.string, let token = try? APNSDeviceToken(hex: tokenText),
            let bundleID = object["bundle-id"]?.string,
            let environment = object["environment"]?.string.flatMap(APNSEnvironment.init(name:))
        else { throw GatewayDataError("journal: a device record lacks its token, bundle-id or environment") }
        var invalidation: DeviceRegistry.Invalidation?
        if let reason = object["invalid-reason"]?.string, let since = object["invalid-since"]?.number?.intValue {
            let reason = APNSReason(rawValue: reason)
            guard reason == .unregistered || reason == .expiredToken else {
                throw GatewayDataError("journal: invalid-reason \(reason) is not Unregistered or ExpiredToken")
            }
            invalidation = .init(reason: reason, since: Date(millisecondsSince1970: since))
        }
        var digest: DeviceSecretDigest?
        if let text = object["secret-sha256"]?.string {
            guard let bytes = Data(base64Encoded: text), let read = DeviceSecretDigest(bytes) else {
                throw GatewayDataError("journal: a device's secret-sha256 is not 32 bytes in base64")
            }
            digest = read
        }
        return DeviceRegistry.Device(
            token: token, bundleID: bundleID, environment: environment, invalidation: invalidation,
            secretDigest: digest)
    }
}
