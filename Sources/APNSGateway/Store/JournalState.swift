import APNSCore
import Foundation
import Logging

/// What ``GatewayJournal`` guards with its lock: the open file and what it knows of the file's records.
struct JournalState {
    var handle: FileHandle
    var size: Int
    /// Bytes of records that a later record of the same token, channel or app replaced, and of slot records
    /// that store nothing: what a compaction would drop.
    var dead = 0
    /// The size of each token's last slot record that stores a notification, by the token's hash value: an
    /// estimate needs no more (two tokens sharing a hash only blur it), and a stored notification costs about 32
    /// bytes more with the dictionary's spare room (`Benchmarks/gateway-memory.sh`), not a copy of its token.
    var slotSizes: [Int: UInt32] = [:]
    /// The size of each channel's and app's last record.
    var changeSizes: [ChannelRegistry.Change: Int] = [:]
    /// The compaction running in the background: the journal's size and dead bytes when its snapshot was taken.
    var compaction: (size: Int, dead: Int)?
    /// Compactions that put a new file in place since the journal was opened.
    var compactions = 0
    /// After a failed compaction, the next waits until this many bytes are dead.
    var retryAtDead = 0
    var closed = false
    var dirty: Set<APNSDeviceToken> = []
    var dirtyChannels: Set<ChannelRegistry.Change> = []
    /// Writes that failed since the start, and those not logged yet (logged outside the lock).
    var failures = 0
    var unlogged: [(level: Logger.Level, message: String)] = []
    /// Whether the last write failed: a full disk is logged once when writes start failing and once when they
    /// work again, not at every flush in between.
    var failing = false

    /// Appends `bytes` to the journal. A write that fails is undone: the file is cut back to its size before it (a
    /// full disk may have taken part of the bytes), so the next record starts on a record boundary.
    ///
    /// - Returns: whether the bytes are in the file.
    mutating func append(_ bytes: inout [UInt8]) -> Bool {
        defer { bytes.removeAll(keepingCapacity: true) }
        guard !bytes.isEmpty else { return true }
        do {
            try handle.write(contentsOf: bytes)
            size += bytes.count
            if failing {
                failing = false
                unlogged.append((.notice, "journal writes work again after \(failures) failed"))
            }
            return true
        } catch {
            failures += 1
            if !failing {
                unlogged.append((.error, "journal write failed; what it carried is refused or retried: \(error)"))
            }
            failing = true
            do {
                // Cut the partial record off and write on from the cut: the next record starts on a boundary.
                try handle.truncate(atOffset: UInt64(size))
                try handle.seek(toOffset: UInt64(size))
            } catch {
                unlogged.append((.critical, "cannot cut the journal back to its last whole record: \(error)"))
            }
            return false
        }
    }

    /// Counts the records that the slot and channel records just written replaced as dead (a slot record that
    /// stores nothing is dead at once: a compaction drops it).
    mutating func countReplaced(
        slots: [(token: APNSDeviceToken, size: Int, stores: Bool)], changes: [(ChannelRegistry.Change, Int)]
    ) {
        for (token, size, stores) in slots {
            if stores {
                dead += Int(slotSizes.updateValue(UInt32(clamping: size), forKey: token.hashValue) ?? 0)
            } else {
                dead += Int(slotSizes.removeValue(forKey: token.hashValue) ?? 0) + size
            }
        }
        for (change, size) in changes { dead += changeSizes.updateValue(size, forKey: change) ?? 0 }
    }

    /// Whether a compaction starts now (none running, at least `threshold` bytes and half the file dead); if so,
    /// notes where it starts.
    mutating func startCompaction(threshold: Int) -> Bool {
        guard compaction == nil, !closed, dead >= max(threshold, retryAtDead), 2 * dead >= size else { return false }
        compaction = (size, dead)
        return true
    }

    /// A compaction that failed: the journal is whole as it is, and the next compaction waits until as much again
    /// is useless.
    mutating func compactionFailed(_ error: any Error, threshold: Int) {
        compaction = nil
        failures += 1
        retryAtDead = dead + threshold
        unlogged.append((.error, "journal compaction failed; the journal is kept as it is: \(error)"))
    }
}
