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
/// A write that fails (a full disk) is never half kept: the file is cut back to its last whole record, the changes
/// it carried are written again at the next flush, and the caller learns of it (``flush(from:registry:channels:)``
/// returns `false`, ``record(_:)`` throws), so nothing is acknowledged that is not in the file.
///
/// The last record of a token wins. At start the journal is read (a torn last record, cut short by a crash, is cut
/// off, kept aside in `journal.torn` and reported) and rewritten with only what is live; while running it is
/// rewritten the same way when it grows past ``compactionThreshold``. A rewrite goes to a new file that is synced and
/// renamed over the journal only when it is whole: a rewrite that fails leaves the journal as it was.
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
        var unlogged: [(level: Logger.Level, message: String)] = []
        /// Whether the last write failed: a full disk is logged once when writes start failing and once when they
        /// work again, not at every flush in between.
        var failing = false
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
        let (recovered, whole) = try Self.read(existing)
        self.recovered = recovered
        if whole < existing.count { Self.cutTornTail(of: existing, at: whole, url: url, logger: logger) }
        do {
            let (handle, size) = try Self.rewrite(url, recovered)
            state = Mutex(State(handle: handle, size: size, liveSize: size))
        } catch {
            // A full disk at start: the journal stays as it was (cut at its last whole record) and is appended to.
            logger.error(
                "journal compaction at start failed; appending to the journal as it is",
                metadata: ["file": "\(url.path)", "error": "\(error)"])
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(whole))
            try handle.seekToEnd()
            state = Mutex(State(handle: handle, size: whole, liveSize: whole, failures: 1))
        }
    }

    /// Writes a device record now.
    ///
    /// - Throws: ``GatewayDataError`` (``GatewayDataError/isStorageFailure``) when the journal cannot be written:
    ///   the registration must not be acknowledged.
    package func record(_ device: DeviceRegistry.Device) throws(GatewayDataError) {
        let written = state.withLock { state in
            var bytes: [UInt8] = []
            Self.frame(Self.deviceRecord(device), into: &bytes)
            return Self.write(&bytes, to: &state)
        }
        logFailures()
        guard written else { throw GatewayDataError.storage(url) }
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
        for (level, message) in messages {
            logger.log(level: level, "\(message)", metadata: ["file": "\(url.path)"])
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
    /// large. When it returns `true`, every change marked before the call is in the file (a flush running on another
    /// thread holds ``flushing`` until it has written what it took), so an answer sent after it survives a killed
    /// process.
    ///
    /// - Returns: `false` when the write failed (the disk is full): the file is as it was before, the changes stay
    ///   marked for the next flush, and nothing the caller was about to acknowledge is on disk.
    @discardableResult
    package func flush(from store: NotificationStore, registry: DeviceRegistry, channels: ChannelRegistry? = nil)
        -> Bool
    {
        flushing.withLock { _ in flushMarked(from: store, registry: registry, channels: channels) }
    }

    private func flushMarked(from store: NotificationStore, registry: DeviceRegistry, channels: ChannelRegistry?)
        -> Bool
    {
        defer { logFailures() }
        let (dirty, dirtyChannels) = state.withLock { state in
            defer {
                state.dirty = []
                state.dirtyChannels = []
            }
            return (state.dirty, state.dirtyChannels)
        }
        guard !dirty.isEmpty || !dirtyChannels.isEmpty else { return true }
        // Encoded before taking the journal's lock (pushes mark tokens under it), into one buffer.
        var bytes: [UInt8] = []
        for token in dirty { Self.frame(Self.slotRecord(token, store.storedNotification(for: token)), into: &bytes) }
        if let channels {
            for change in dirtyChannels { Self.frame(Self.record(change, in: channels), into: &bytes) }
        }
        return state.withLock { state in
            guard Self.write(&bytes, to: &state) else {
                state.dirty.formUnion(dirty)
                state.dirtyChannels.formUnion(dirtyChannels)
                return false
            }
            guard state.size > max(compactionThreshold, 2 * state.liveSize) else { return true }
            // The snapshot is taken under the journal's lock: a device record racing it waits for the lock and lands
            // in the new file, never in the old one about to be replaced.
            let live = Recovered(
                devices: registry.all, stored: store.allStored(), channels: channels?.all ?? [],
                disabledApps: channels?.disabledApps ?? [])
            let rewritten: (FileHandle, Int)
            do {
                rewritten = try Self.rewrite(url, live)
            } catch {
                // The journal is whole as it is; the next compaction is tried once it has grown as much again.
                state.failures += 1
                state.unlogged.append((.error, "journal compaction failed; the journal is kept as it is: \(error)"))
                state.liveSize = state.size
                return true
            }
            let (handle, size) = rewritten
            try? state.handle.close()
            state.handle = handle
            state.size = size
            state.liveSize = size
            return true
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

    /// Writes `records` to a new file, each framed, a chunk at a time.
    ///
    /// - Throws: the first write that fails.
    private static func append(_ records: some Sequence<[UInt8]>, to handle: FileHandle) throws -> Int {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(writeChunk)
        var size = 0
        for record in records {
            frame(record, into: &bytes)
            if bytes.count >= writeChunk {
                try handle.write(contentsOf: bytes)
                size += bytes.count
                bytes.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: bytes)
        return size + bytes.count
    }

    /// Adds `record` to `bytes` as the journal frames it: its byte count, a newline, the record, a newline.
    private static func frame(_ record: [UInt8], into bytes: inout [UInt8]) {
        bytes += Array(String(record.count).utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes += record
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Appends `bytes` to the journal. A write that fails is undone: the file is cut back to its size before it (a
    /// full disk may have taken part of the bytes), so the next record starts on a record boundary.
    ///
    /// - Returns: whether the bytes are in the file.
    private static func write(_ bytes: inout [UInt8], to state: inout State) -> Bool {
        defer { bytes.removeAll(keepingCapacity: true) }
        guard !bytes.isEmpty else { return true }
        do {
            try state.handle.write(contentsOf: bytes)
            state.size += bytes.count
            if state.failing {
                state.failing = false
                state.unlogged.append((.notice, "journal writes work again after \(state.failures) failed"))
            }
            return true
        } catch {
            state.failures += 1
            if !state.failing {
                state.unlogged.append((.error, "journal write failed; what it carried is refused or retried: \(error)"))
            }
            state.failing = true
            do {
                // Cut the partial record off and write on from the cut: the next record starts on a boundary.
                try state.handle.truncate(atOffset: UInt64(state.size))
                try state.handle.seek(toOffset: UInt64(state.size))
            } catch {
                state.unlogged.append((.critical, "cannot cut the journal back to its last whole record: \(error)"))
            }
            return false
        }
    }

    /// Writes a fresh journal holding just what is live next to the old one, syncs it, then renames it over the old
    /// one. Nothing replaces the journal unless the new file was written whole.
    private static func rewrite(_ url: URL, _ live: Recovered) throws -> (FileHandle, Int) {
        let temporary = url.appendingPathExtension("new")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw GatewayDataError("cannot create \(temporary.path)")
        }
        let handle = try FileHandle(forWritingTo: temporary)
        do {
            var size = try append(live.devices.lazy.map(deviceRecord), to: handle)
            size += try append(live.stored.lazy.map { slotRecord($0.token, $0) }, to: handle)
            size += try append(live.channels.lazy.map { channelRecord($0.id, $0) }, to: handle)
            size += try append(live.disabledApps.lazy.map { appRecord($0, enabled: false) }, to: handle)
            try handle.synchronize()
            guard rename(temporary.path, url.path) == 0 else {
                throw GatewayDataError("cannot rename \(temporary.path) to \(url.path) (errno \(errno))")
            }
            syncDirectory(of: url)
            return (handle, size)
        } catch {
            try? handle.close()
            unlink(temporary.path)
            throw error
        }
    }

    /// Syncs the folder holding `url`, so a rename in it survives a power loss.
    private static func syncDirectory(of url: URL) {
        let folder = try? FileHandle(forReadingFrom: url.deletingLastPathComponent())
        try? folder?.synchronize()
        try? folder?.close()
    }

    /// Cuts a torn tail off the journal, keeping the cut bytes in `journal.torn` for a person to look at.
    private static func cutTornTail(of data: Data, at whole: Int, url: URL, logger: Logger) {
        let torn = url.appendingPathExtension("torn")
        let kept = (try? Data(data[whole...]).write(to: torn)) != nil
        logger.error(
            "the journal's last record was cut short (the gateway was stopped mid-write); it is cut off",
            metadata: [
                "file": "\(url.path)", "whole-bytes": "\(whole)", "torn-bytes": "\(data.count - whole)",
                "kept-in": "\(kept ? torn.path : "nowhere: it could not be written")",
            ])
    }

    /// Reads every whole record; a record cut short by a crash ends the journal.
    ///
    /// - Returns: what the records hold, and the byte count of the whole records (the rest is a torn tail).
    private static func read(_ data: Data) throws -> (Recovered, whole: Int) {
        var devices: [Data: DeviceRegistry.Device] = [:]
        var slots: [Data: AcceptedNotification] = [:]
        var channels: [APNSChannelID: BroadcastChannel] = [:]
        var disabled: Set<BroadcastApp> = []
        let bytes = [UInt8](data)
        var offset = 0
        // A count is a file's number: checked against what is left before any arithmetic.
        while let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")),
            let count = Int(String(decoding: bytes[offset..<newline], as: UTF8.self)),
            count >= 0, count < bytes.count - newline - 1, bytes[newline + 1 + count] == UInt8(ascii: "\n")
        {
            let record = Data(bytes[(newline + 1)..<(newline + 1 + count)])
            let end = newline + 2 + count
            guard case .object(let object) = try? JSONValue(parsing: record) else {
                // The last record may be torn inside (its count written, its bytes not all): that ends the journal.
                if end == bytes.count { break }
                throw GatewayDataError("journal record at byte \(newline + 1) is not a JSON object")
            }
            offset = end
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
        let recovered = Recovered(
            devices: Array(devices.values), stored: Array(slots.values), channels: Array(channels.values),
            disabledApps: disabled)
        return (recovered, offset)
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
