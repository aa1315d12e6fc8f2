package import APNSCore
package import Courier
package import Foundation
import HeraldSupport
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
/// returns `false`, ``record(_:replacing:)`` throws), so nothing is acknowledged that is not in the file.
///
/// The last record of a token wins. At start the journal is read (a torn last record, cut short by a crash, is cut
/// off, kept aside in `journal.torn` and reported) and rewritten with only what is live. While running, the bytes
/// that later records made useless are counted; once they are past ``compactionThreshold`` and half the file, the
/// journal is rewritten the same way in the background: appends go on meanwhile, are copied after the rewrite and the
/// new file is renamed over the journal only when it is whole and synced (a rewrite that fails leaves the journal
/// as it was). A journal that only grows with what is live (a broadcast to a million new devices) is never rewritten.
package final class GatewayJournal: Sendable {
    /// How often changed tokens are written.
    package static let flushInterval: Duration = .milliseconds(100)
    /// How many useless bytes start a compaction (once they are half the file too).
    package let compactionThreshold: Int

    /// What a journal held when it was opened.
    package struct Recovered: Sendable {
        package var devices = DeviceTable()
        package var stored: [AcceptedNotification] = []
        package var channels: [BroadcastChannel] = []
        package var disabledApps: Set<BroadcastApp> = []
    }

    /// The journal's path.
    package let url: URL
    private let state: Mutex<JournalState>
    /// Held by one flush at a time, from taking the changed tokens to writing them.
    private let flushing = Mutex(())
    /// Entered while a compaction runs.
    private let compacting = DispatchGroup()
    private let logger: Logger
    /// Told how long each write of what changed took.
    private let written: @Sendable (Duration) -> Void

    /// What the journal held when it was opened.
    package let recovered: Recovered

    /// Opens (or makes) the journal in `directory`, reads it and rewrites it compactly.
    ///
    /// - Parameters:
    ///   - directory: the gateway's data directory.
    ///   - compactionThreshold: how many useless bytes start a compaction; 64 MiB by default.
    ///   - logger: where a failed write or compaction is logged (they are counted in ``writeFailures`` too).
    ///   - written: told how long each write of what changed took (for `/admin/metrics`).
    /// - Throws: when the file cannot be read or written; ``GatewayDataError`` when a record is not what it should be.
    package init(
        directory: URL, compactionThreshold: Int = 64 << 20,
        logger: Logger = Logger(label: "herald-gateway-journal"),
        written: @escaping @Sendable (Duration) -> Void = { _ in }
    ) throws {
        self.compactionThreshold = compactionThreshold
        self.logger = logger
        self.written = written
        try PrivateFile.makeDirectory(directory)
        url = directory.appendingPathComponent("journal")
        let (recovered, whole, size) = try JournalRecords.read(contentsOf: url)
        self.recovered = recovered
        if whole < size { JournalFile.cutTornTail(of: url, at: whole, size: size, logger: logger) }
        do {
            let (handle, size, slotSizes) = try JournalFile.writeFresh(beside: url, recovered)
            _ = try JournalFile.install(handle, over: url, copyingFrom: nil)
            state = Mutex(JournalState(handle: handle, size: size, slotSizes: slotSizes))
        } catch {
            // A full disk at start: the journal stays as it was (cut at its last whole record) and is appended to.
            logger.error(
                "journal compaction at start failed; appending to the journal as it is",
                metadata: ["file": "\(url.path)", "error": "\(error)"])
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(whole))
            try handle.seekToEnd()
            state = Mutex(JournalState(handle: handle, size: whole, failures: 1))
        }
    }

    /// Writes device records now, in one write.
    ///
    /// - Parameters:
    ///   - devices: the devices as they are now.
    ///   - replacing: whether the tokens already have a record (an invalidation, a secret given later): the earlier
    ///     ones are counted as useless.
    /// - Throws: ``GatewayDataError`` (``GatewayDataError/isStorageFailure``) when the journal cannot be written:
    ///   the registrations must not be acknowledged.
    package func record(_ devices: [DeviceRegistry.Device], replacing: Bool = false) throws(GatewayDataError) {
        var bytes: [UInt8] = []
        var sizes = 0
        for device in devices { sizes += JournalRecords.frame(JournalRecords.device(device), into: &bytes) }
        let written = state.withLock { state in
            guard state.append(&bytes) else { return false }
            // The records they replace have the same fields, so about the same size.
            if replacing { state.dead += sizes }
            return true
        }
        logFailures()
        guard written else { throw GatewayDataError.storage(url) }
    }

    /// How many writes or compactions of the journal failed since it was opened (each is logged as an error: what
    /// it held is not on disk).
    package var writeFailures: Int { state.withLock { $0.failures } }

    /// How many compactions put a new file in place since the journal was opened (the one at start not counted).
    package var compactions: Int { state.withLock { $0.compactions } }

    /// Notes that a token's stored notification changed; written at the next flush.
    package func markChanged(_ token: APNSDeviceToken) {
        _ = state.withLock { $0.dirty.insert(token) }
    }

    /// Notes that a channel or an app's broadcast switch changed; written at the next flush.
    package func markChanged(_ change: ChannelRegistry.Change) {
        _ = state.withLock { $0.dirtyChannels.insert(change) }
    }

    /// Writes what is stored now for every changed token and channel, and starts a compaction in the background
    /// when enough of the journal is useless. When it returns `true`, every change marked before the call is in the
    /// file (a flush running on another thread holds ``flushing`` until it has written what it took), so an answer
    /// sent after it survives a killed process.
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
        // Encoded before taking the journal's lock (pushes mark tokens under it), into one buffer. With nothing to
        // write, a compaction that waited for the last one to end may still start.
        var bytes: [UInt8] = []
        var slotSizes: [(token: APNSDeviceToken, size: Int, stores: Bool)] = []
        slotSizes.reserveCapacity(dirty.count)
        for token in dirty {
            let notification = store.storedNotification(for: token)
            let size = JournalRecords.frameSlot(token, notification, into: &bytes)
            slotSizes.append((token, size, notification != nil))
        }
        var changeSizes: [(ChannelRegistry.Change, Int)] = []
        if let channels {
            for change in dirtyChannels {
                changeSizes.append(
                    (change, JournalRecords.frame(JournalRecords.change(change, in: channels), into: &bytes)))
            }
        }
        let writing = ContinuousClock.now
        let wrote = !bytes.isEmpty
        defer { if wrote { written(.now - writing) } }
        let snapshot = state.withLock { state -> Bool? in
            guard state.append(&bytes) else {
                state.dirty.formUnion(dirty)
                state.dirtyChannels.formUnion(dirtyChannels)
                return nil
            }
            state.countReplaced(slots: slotSizes, changes: changeSizes)
            return state.startCompaction(threshold: compactionThreshold)
        }
        guard let snapshot else { return false }
        if snapshot {
            // Taken after the write: everything up to the compaction's offset is in the snapshot or older.
            let live = Recovered(
                devices: registry.snapshot, stored: store.allStored(), channels: channels?.all ?? [],
                disabledApps: channels?.disabledApps ?? [])
            compacting.enter()
            Thread.detachNewThread { [self] in
                compact(live)
                compacting.leave()
            }
        }
        return true
    }

    /// Rewrites the journal with `live` beside it, then, under the lock, copies what was appended meanwhile and puts
    /// the new file in place.
    private func compact(_ live: Recovered) {
        defer { logFailures() }
        let fresh: (FileHandle, Int)
        do {
            // Its slot sizes are not taken: the slots written since the snapshot are newer.
            let (handle, size, _) = try JournalFile.writeFresh(beside: url, live)
            fresh = (handle, size)
        } catch {
            state.withLock { $0.compactionFailed(error, threshold: compactionThreshold) }
            return
        }
        let (handle, size) = fresh
        state.withLock { state in
            guard let (offset, deadThen) = state.compaction, !state.closed else {
                JournalFile.abandon(handle, beside: url)
                state.compaction = nil
                return
            }
            do {
                let copied = try JournalFile.install(handle, over: url, copyingFrom: offset)
                try? state.handle.close()
                state.handle = handle
                state.size = size + copied
                state.dead -= deadThen
                state.compaction = nil
                state.compactions += 1
            } catch {
                state.compactionFailed(error, threshold: compactionThreshold)
            }
        }
    }

    /// Waits until a compaction running in the background has ended.
    /// The journal's size in bytes now.
    package var size: Int { state.withLock { $0.size } }

    package func waitForCompaction() {
        compacting.wait()
    }

    /// Waits for a compaction running, then closes the file.
    package func close() {
        compacting.wait()
        state.withLock { state in
            state.closed = true
            try? state.handle.close()
        }
    }

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
}
