import APNSCore
import Courier
import Foundation
import Logging

/// The journal's file operations that are not appends: a fresh file written beside the journal and put in its place
/// only when whole, and the torn tail of a crashed write cut off.
enum JournalFile {
    /// How many bytes of records are gathered before they are written: a rewrite of a large journal never holds
    /// more than this (and one record) in memory.
    static let writeChunk = 64 << 10

    /// Writes what is live into `DATA/journal.new` (created 0600, emptied if it was there), synced.
    ///
    /// - Returns: the open file (for appends), its size, and the size of each slot record
    ///   (``JournalState/slotSizes``).
    /// - Throws: the first write that fails; the new file is removed then.
    static func writeFresh(beside url: URL, _ live: GatewayJournal.Recovered) throws
        -> (FileHandle, Int, slotSizes: [Int: UInt32])
    {
        let temporary = url.appendingPathExtension("new")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw GatewayDataError("cannot create \(temporary.path)")
        }
        let handle = try FileHandle(forWritingTo: temporary)
        do {
            var size = try append(live.devices.lazy.map(JournalRecords.device), to: handle)
            var slotSizes: [Int: UInt32] = [:]
            slotSizes.reserveCapacity(live.stored.count)
            size += try append(
                live.stored.lazy.map { notification in
                    let record = JournalRecords.slot(notification.token, notification)
                    slotSizes[notification.token.hashValue] = UInt32(clamping: JournalRecords.framedSize(record))
                    return record
                }, to: handle)
            size += try append(live.channels.lazy.map { JournalRecords.channel($0.id, $0) }, to: handle)
            size += try append(live.disabledApps.lazy.map { JournalRecords.app($0, enabled: false) }, to: handle)
            try handle.synchronize()
            return (handle, size, slotSizes)
        } catch {
            abandon(handle, beside: url)
            throw error
        }
    }

    /// Appends the journal's bytes from `offset` to its end (what was written while the fresh file was being made;
    /// `nil`: nothing) to the fresh file, syncs it and renames it over the journal.
    ///
    /// - Returns: the bytes copied.
    /// - Throws: when a read, write or the rename fails; the journal is as it was, the fresh file is removed.
    static func install(_ handle: FileHandle, over url: URL, copyingFrom offset: Int?) throws -> Int {
        let temporary = url.appendingPathExtension("new")
        do {
            var copied = 0
            if let offset {
                // A journal that cannot be read (no file descriptor left) fails the install: its tail must not be lost.
                let journal = try FileHandle(forReadingFrom: url)
                defer { try? journal.close() }
                try journal.seek(toOffset: UInt64(offset))
                while let chunk = try journal.read(upToCount: writeChunk), !chunk.isEmpty {
                    try handle.write(contentsOf: chunk)
                    copied += chunk.count
                }
            }
            try handle.synchronize()
            guard rename(temporary.path, url.path) == 0 else {
                throw GatewayDataError("cannot rename \(temporary.path) to \(url.path) (errno \(errno))")
            }
            syncDirectory(of: url)
            return copied
        } catch {
            abandon(handle, beside: url)
            throw error
        }
    }

    /// Closes and removes a fresh file that will not replace the journal.
    static func abandon(_ handle: FileHandle, beside url: URL) {
        try? handle.close()
        unlink(url.appendingPathExtension("new").path)
    }

    /// Writes `records` to a file, each framed, a chunk at a time.
    ///
    /// - Throws: the first write that fails.
    private static func append(_ records: some Sequence<[UInt8]>, to handle: FileHandle) throws -> Int {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(writeChunk)
        var size = 0
        for record in records {
            JournalRecords.frame(record, into: &bytes)
            if bytes.count >= writeChunk {
                try handle.write(contentsOf: bytes)
                size += bytes.count
                bytes.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: bytes)
        return size + bytes.count
    }

    /// Syncs the folder holding `url`, so a rename in it survives a power loss.
    private static func syncDirectory(of url: URL) {
        let folder = try? FileHandle(forReadingFrom: url.deletingLastPathComponent())
        try? folder?.synchronize()
        try? folder?.close()
    }

    /// Cuts a torn tail off the journal, keeping the cut bytes in `journal.torn` for a person to look at.
    static func cutTornTail(of url: URL, at whole: Int, size: Int, logger: Logger) {
        let torn = url.appendingPathExtension("torn")
        let tail = try? FileHandle(forReadingFrom: url).readTail(from: whole)
        let kept = (try? tail?.write(to: torn)) != nil
        logger.error(
            "the journal's last record was cut short (the gateway was stopped mid-write); it is cut off",
            metadata: [
                "file": "\(url.path)", "whole-bytes": "\(whole)", "torn-bytes": "\(size - whole)",
                "kept-in": "\(kept ? torn.path : "nowhere: it could not be written")",
            ])
    }
}

extension FileHandle {
    /// The bytes from `offset` to the end; the handle is closed.
    fileprivate func readTail(from offset: Int) throws -> Data {
        defer { try? close() }
        try seek(toOffset: UInt64(offset))
        return try readToEnd() ?? Data()
    }
}
