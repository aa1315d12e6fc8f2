package import APNSCore
package import Courier
package import Foundation
package import Logging
import Synchronization

/// Keeps the gateway's issued tokens and stored notifications in `DATA/journal`, so both survive a restart.
///
/// The journal is a sequence of records, each `<byte count>\n<JSON object>\n`:
/// - `{"device": {"token", "bundle-id", "environment", "secret-sha256", "invalid-reason", "invalid-since"}}` (the
///   device secret's digest in base64), written at once;
/// - `{"channel-id": "<id>", "channel": {...} or null}`: a broadcast channel now (with its stored message), `null`
///   once deleted; `{"broadcast-app": {"bundle-id", "environment", "enabled"}}`: an app's broadcast switch;
/// - `{"slot": "<token>", "notification": {...} or null}`: what is stored for a token now. Changed tokens are
///   collected and written together: before the answers of a batch of requests that accepted a push go out (group
///   commit: a 200 means the push is in the file), every ``flushInterval`` for changes no request makes (acks,
///   expiry), and at shutdown. The file is written, not synced: a killed process loses nothing, a power loss may.
///
/// The last record of a token wins. At start the journal is read and rewritten with only what is live; while running
/// it is rewritten the same way when it grows past ``compactionThreshold``.
package final class GatewayJournal: Sendable {
    /// How often changed tokens are written.
    package static let flushInterval: Duration = .milliseconds(100)
    /// The journal size that starts a compaction while running.
    package let compactionThreshold: Int

    private struct State {
        var handle: FileHandle
        var size: Int
        /// The size right after the last rewrite: what is live. The next rewrite waits until the journal is twice
        /// that (or past the threshold, whichever is larger), so a store that is large on its own is not rewritten
        /// at every flush.
        var liveSize = 0
        var dirty: Set<APNSDeviceToken> = []
        var dirtyChannels: Set<ChannelRegistry.Change> = []
        /// Writes that failed since the start, and those not logged yet (logged outside the lock).
        var failures = 0
        var unlogged: [String] = []
    }

    /// What a journal held when it was opened.
    package struct Recovered: Sendable {
        package var devices: [DeviceRegistry.Device] = []
        package var stored: [AcceptedNotification] = []
        package var channels: [BroadcastChannel] = []
        package var disabledApps: Set<BroadcastApp> = []
    }

    /// The journal's path.
    package let url: URL
    private let state: Mutex<State>
    /// Held by one flush at a time, from taking the changed tokens to writing them.
    private let flushing = Mutex(())
    private let logger: Logger

    /// What the journal held when it was opened.
    package let recovered: Recovered

    /// Opens (or makes) the journal in `directory`, reads it and rewrites it compactly.
    ///
    /// - Parameters:
    ///   - directory: the gateway's data directory.
    ///   - compactionThreshold: the size past which a flush rewrites the journal; 64 MiB by default.
    ///   - logger: where a failed write or compaction is logged (they are counted in ``writeFailures`` too).
    /// - Throws: when the file cannot be read or written; ``GatewayDataError`` when a record is not what it should be.
    package init(
        directory: URL, compactionThreshold: Int = 64 << 20,
        logger: Logger = Logger(label: "herald-gateway-journal")
    ) throws {
        self.compactionThreshold = compactionThreshold
        self.logger = logger
        try PrivateFile.makeDirectory(directory)
        url = directory.appendingPathComponent("journal")
        let existing = (try? Data(contentsOf: url)) ?? Data()
        recovered = try Self.read(existing)
        let (handle, size) = try Self.rewrite(url, recovered)
        state = Mutex(State(handle: handle, size: size))
    }

    /// Writes a device record now.
    package func record(_ device: DeviceRegistry.Device) {
        state.withLock { state in Self.append([Self.deviceRecord(device)], to: &state) }
        logFailures()
    }

    /// How many writes or compactions of the journal failed since it was opened (each is logged as an error: what
    /// it held is not on disk).
    package var writeFailures: Int { state.withLock { $0.failures } }

    /// Logs the failures noted under the lock.
    private func logFailures() {
        let messages = state.withLock { state in
            defer { state.unlogged = [] }
            return state.unlogged
        }
        for message in messages {
            logger.error("journal write failed", metadata: ["file": "\(url.path)", "error": "\(message)"])
        }
    }

    /// Notes that a token's stored notification changed; written at the next flush.
    package func markChanged(_ token: APNSDeviceToken) {
        _ = state.withLock { $0.dirty.insert(token) }
    }

    /// Notes that a channel or an app's broadcast switch changed; written at the next flush.
    package func markChanged(_ change: ChannelRegistry.Change) {
        _ = state.withLock { $0.dirtyChannels.insert(change) }
    }

    /// Writes what is stored now for every changed token and channel, compacting the journal when it has grown too
    /// large. When it returns, every change marked before the call is in the file (a flush running on another thread
    /// holds ``flushing`` until it has written what it took), so an answer sent after it survives a killed process.
    package func flush(from store: NotificationStore, registry: DeviceRegistry, channels: ChannelRegistry? = nil) {
        flushing.withLock { _ in flushMarked(from: store, registry: registry, channels: channels) }
    }

    private func flushMarked(from store: NotificationStore, registry: DeviceRegistry, channels: ChannelRegistry?) {
        defer { logFailures() }
        let (dirty, dirtyChannels) = state.withLock { state in
            defer {
                state.dirty = []
                state.dirtyChannels = []
            }
            return (state.dirty, state.dirtyChannels)
        }
        guard !dirty.isEmpty || !dirtyChannels.isEmpty else { return }
        // Encoded before taking the journal's lock (pushes mark tokens under it), into one buffer.
        var bytes: [UInt8] = []
        for token in dirty { Self.frame(Self.slotRecord(token, store.storedNotification(for: token)), into: &bytes) }
        if let channels {
            for change in dirtyChannels { Self.frame(Self.record(change, in: channels), into: &bytes) }
        }
        state.withLock { state in
            Self.write(&bytes, to: &state)
            guard state.size > max(compactionThreshold, 2 * state.liveSize) else { return }
            // The snapshot is taken under the journal's lock: a device record racing it waits for the lock and lands
            // in the new file, never in the old one about to be replaced.
            let live = Recovered(
                devices: registry.all, stored: store.allStored(), channels: channels?.all ?? [],
                disabledApps: channels?.disabledApps ?? [])
            let rewritten: (FileHandle, Int)
            do {
                rewritten = try Self.rewrite(url, live)
            } catch {
                state.failures += 1
                state.unlogged.append("cannot compact: \(error)")
                return
            }
            let (handle, size) = rewritten
            try? state.handle.close()
            state.handle = handle
            state.size = size
            state.liveSize = size
        }
    }

    /// Closes the file.
    package func close() {
        state.withLock { try? $0.handle.close() }
    }

    private static func deviceRecord(_ device: DeviceRegistry.Device) -> [UInt8] {
        var fields: [(key: String, value: JSONValue)] = [
            ("token", .string(device.token.hex)),
            ("bundle-id", .string(device.bundleID)),
            ("environment", .string(device.environment.rawValue)),
        ]
        if let digest = device.secretDigest {
            fields.append(("secret-sha256", .string(digest.base64EncodedString())))
        }
        if let invalidation = device.invalidation {
            fields.append(("invalid-reason", .string(invalidation.reason.rawValue)))
            fields.append(("invalid-since", .number(JSONNumber(invalidation.since.millisecondsSince1970))))
        }
        return Array(JSONValue.object(JSONObject([(key: "device", value: .object(JSONObject(fields)))])).encoded())
    }

    private static func record(_ change: ChannelRegistry.Change, in channels: ChannelRegistry) -> [UInt8] {
        switch change {
        case .channel(let id): channelRecord(id, channels.channel(id))
        case .app(let app): appRecord(app, enabled: channels.isBroadcastEnabled(for: app))
        }
    }

    private static func channelRecord(_ id: APNSChannelID, _ channel: BroadcastChannel?) -> [UInt8] {
        let record = JSONObject([("channel-id", .string(id.rawValue)), ("channel", channel?.json ?? .null)])
        return Array(JSONValue.object(record).encoded())
    }

    private static func appRecord(_ app: BroadcastApp, enabled: Bool) -> [UInt8] {
        let fields = JSONObject([
            ("bundle-id", .string(app.bundleID)), ("environment", .string(app.environment.rawValue)),
            ("enabled", .bool(enabled)),
        ])
        return Array(JSONValue.object(JSONObject([("broadcast-app", .object(fields))])).encoded())
    }

    private static func slotRecord(_ token: APNSDeviceToken, _ notification: AcceptedNotification?) -> [UInt8] {
        var bytes = Array(#"{"slot":""#.utf8) + Array(token.hex.utf8) + Array(#"","notification":"#.utf8)
        bytes += notification?.json() ?? Array("null".utf8)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// How many bytes of records are gathered before they are written: a rewrite of a large journal never holds
    /// more than this (and one record) in memory.
    private static let writeChunk = 64 << 10

    /// Writes `records`, each framed, a chunk at a time.
    private static func append(_ records: some Sequence<[UInt8]>, to state: inout State) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(writeChunk)
        for record in records {
            frame(record, into: &bytes)
            if bytes.count >= writeChunk { write(&bytes, to: &state) }
        }
        write(&bytes, to: &state)
    }

    /// Adds `record` to `bytes` as the journal frames it: its byte count, a newline, the record, a newline.
    private static func frame(_ record: [UInt8], into bytes: inout [UInt8]) {
        bytes += Array(String(record.count).utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes += record
        bytes.append(UInt8(ascii: "\n"))
    }

    private static func write(_ bytes: inout [UInt8], to state: inout State) {
        guard !bytes.isEmpty else { return }
        do {
            try state.handle.write(contentsOf: bytes)
            state.size += bytes.count
        } catch {
            state.failures += 1
            state.unlogged.append("\(error)")
        }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Writes a fresh journal holding just what is live next to the old one, then renames it over the old.
    private static func rewrite(_ url: URL, _ live: Recovered) throws -> (FileHandle, Int) {
        let temporary = url.appendingPathExtension("new")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw GatewayDataError("cannot create \(temporary.path)")
        }
        var state = State(handle: try FileHandle(forWritingTo: temporary), size: 0)
        append(live.devices.lazy.map(deviceRecord), to: &state)
        append(live.stored.lazy.map { slotRecord($0.token, $0) }, to: &state)
        append(live.channels.lazy.map { channelRecord($0.id, $0) }, to: &state)
        append(live.disabledApps.lazy.map { appRecord($0, enabled: false) }, to: &state)
        guard rename(temporary.path, url.path) == 0 else {
            throw GatewayDataError("cannot rename \(temporary.path) to \(url.path) (errno \(errno))")
        }
        return (state.handle, state.size)
    }

    /// Reads every complete record; a record cut short by a crash ends the journal.
    private static func read(_ data: Data) throws -> Recovered {
        var devices: [Data: DeviceRegistry.Device] = [:]
        var slots: [Data: AcceptedNotification] = [:]
        var channels: [APNSChannelID: BroadcastChannel] = [:]
        var disabled: Set<BroadcastApp> = []
        let bytes = [UInt8](data)
        var offset = 0
        while let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")),
            let count = Int(String(decoding: bytes[offset..<newline], as: UTF8.self)),
            newline + 1 + count <= bytes.count
        {
            let record = Data(bytes[(newline + 1)..<(newline + 1 + count)])
            offset = newline + 2 + count
            guard case .object(let object) = try? JSONValue(parsing: record) else {
                throw GatewayDataError("journal record at byte \(newline + 1) is not a JSON object")
            }
            if case .object(let device) = object["device"] {
                let parsed = try Self.device(device)
                devices[parsed.token.bytes] = parsed
            } else if let tokenText = object["slot"]?.string, let token = try? APNSDeviceToken(hex: tokenText) {
                if case .object(let notification) = object["notification"] {
                    slots[token.bytes] = try AcceptedNotification(json: notification)
                } else {
                    slots[token.bytes] = nil
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
                    "journal record at byte \(newline + 1) is not a device, a slot, a channel or a broadcast app")
            }
        }
        return Recovered(
            devices: Array(devices.values), stored: Array(slots.values), channels: Array(channels.values),
            disabledApps: disabled)
    }

    private static func device(_ object: JSONObject) throws -> DeviceRegistry.Device {
        guard let tokenText = object["token"]?.string, let token = try? APNSDeviceToken(hex: tokenText),
            let bundleID = object["bundle-id"]?.string,
            let environment = object["environment"]?.string.flatMap(APNSEnvironment.init(name:))
        else { throw GatewayDataError("journal: a device record lacks its token, bundle-id or environment") }
        var invalidation: DeviceRegistry.Invalidation?
        if let reason = object["invalid-reason"]?.string, let since = object["invalid-since"]?.number?.intValue {
            invalidation = .init(reason: APNSReason(rawValue: reason), since: Date(millisecondsSince1970: since))
        }
        let digest = object["secret-sha256"]?.string.flatMap { Data(base64Encoded: $0) }
        return DeviceRegistry.Device(
            token: token, bundleID: bundleID, environment: environment, invalidation: invalidation,
            secretDigest: digest)
    }
}
