import Foundation

/// Receipts waiting to be sent, one small file each in HeraldKit's folder, so the app and its extensions share them
/// and a process killed a moment later (a service extension out of time) loses none.
///
/// Files are named by the time they were queued, so the oldest is sent first. A file being sent is renamed with
/// `.sending` first, so two processes never send the same one; a claim left by a process that was killed is taken
/// again after ``staleClaim`` (the provider records a receipt sent twice once: it is the same event at the same
/// time). Past ``limit`` files the oldest are dropped, and counted.
// Other processes share the folder, never this object; all but three properties are immutable.
// Safety: `sequence`, `counted` and `appendsSinceListing` are read and written only under `lock`.
final class ReceiptQueue: @unchecked Sendable {
    let folder: URL
    let limit: Int
    private let lock = NSLock()
    private var sequence: UInt32 = 0
    /// The files waiting as this process last counted them, plus its own appends since: listing the folder at each
    /// receipt cost milliseconds once a thousand waited, inside a service extension's time.
    private var counted: Int
    private var appendsSinceListing = 0
    private let processTag = UInt32.random(in: 0...UInt32.max)
    /// How long a claimed file may stay claimed before another process sends it.
    static let staleClaim: TimeInterval = 120
    /// The folder is listed again after this many appends, to count what other processes queued.
    static let appendsBetweenListings = 100

    init(folder: URL, limit: Int) throws(HeraldError) {
        self.folder = folder.appendingPathComponent("receipts", isDirectory: true)
        self.limit = max(1, limit)
        do {
            try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot create \(self.folder.path): \(error.localizedDescription)")
        }
        counted = 0
        counted = names().count
    }

    /// Writes `receipt` to its own file, dropping the oldest when the queue is full.
    ///
    /// - Throws: ``HeraldError/storage(_:)`` when the file cannot be written (a full disk).
    func append(_ receipt: Receipt) throws(HeraldError) {
        let (name, full) = lock.withLock {
            sequence &+= 1
            appendsSinceListing += 1
            let nanos = UInt64(Date().timeIntervalSince1970 * 1_000_000) * 1000 + UInt64(sequence % 1000)
            return (
                String(format: "%020llu-%08x.json", nanos, processTag),
                counted + 1 > limit || appendsSinceListing >= Self.appendsBetweenListings
            )
        }
        if full { dropOldest() }
        do {
            // Written under a name the sender ignores, then renamed: a reader never sees half a receipt.
            let partial = folder.appendingPathComponent(name + ".partial")
            try Self.write(receipt.feedbackJSON, to: partial.path)
            try FileManager.default.moveItem(at: partial, to: folder.appendingPathComponent(name))
        } catch {
            throw .storage("the receipt was not queued (\(error.localizedDescription)); it is sent from memory")
        }
        lock.withLock { counted += 1 }
    }

    /// Counts the files again and removes the oldest past room for one more.
    private func dropOldest() {
        let waiting = names()
        let excess = waiting.count - limit + 1
        var removed = 0
        if excess > 0 {
            let manager = FileManager.default
            for old in waiting.prefix(excess) {
                // A sender may claim or give back the file meanwhile: it is removed under whichever name it has now,
                // and counted only when it was.
                let name = old.hasSuffix(".sending") ? String(old.dropLast(".sending".count)) : old
                if (try? manager.removeItem(at: folder.appendingPathComponent(name))) != nil
                    || (try? manager.removeItem(at: folder.appendingPathComponent(name + ".sending"))) != nil
                {
                    removed += 1
                }
            }
            if removed > 0 { addToCounter("dropped", removed) }
        }
        lock.withLock {
            counted = waiting.count - removed
            appendsSinceListing = 0
        }
    }

    /// The files waiting, oldest first, claimed ones included (their names end in `.sending`).
    func names() -> [String] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return all.filter { $0.hasSuffix(".json") || $0.hasSuffix(".json.sending") }.sorted()
    }

    /// Takes the oldest receipt of `names` (a listing, oldest first) no other process is sending, from `start` on.
    ///
    /// - Returns: the claimed file, its body and the position after it in `names`, or nil when none is left. A file
    ///   that cannot be read is removed and counted as corrupt.
    func claimNext(in names: [String], from start: Int) -> (file: URL, body: Data, next: Int)? {
        let manager = FileManager.default
        var index = start
        while index < names.count {
            let name = names[index]
            index += 1
            var file = folder.appendingPathComponent(name)
            if name.hasSuffix(".sending") {
                let modified = (try? manager.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? nil
                guard let modified, Date().timeIntervalSince(modified) > Self.staleClaim else { continue }
            } else {
                let claimed = folder.appendingPathComponent(name + ".sending")
                guard (try? manager.moveItem(at: file, to: claimed)) != nil else { continue }
                file = claimed
            }
            guard let body = try? Data(contentsOf: file), Self.isReceipt(body) else {
                remove(file)
                addToCounter("corrupt", 1)
                continue
            }
            return (file, body, index)
        }
        return nil
    }

    /// Gives a claimed receipt back (it was not sent), keeping its place in the order.
    func release(_ file: URL) {
        try? FileManager.default.moveItem(at: file, to: file.deletingPathExtension())
    }

    /// Forgets a receipt that was sent, or that the provider will never take.
    func remove(_ file: URL) {
        if (try? FileManager.default.removeItem(at: file)) != nil {
            lock.withLock { counted = max(0, counted - 1) }
        }
    }

    /// How many receipts were dropped because the queue was full, and how many files could not be read.
    func counter(_ name: String) -> Int {
        (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    private func addToCounter(_ name: String, _ count: Int) {
        lock.withLock {
            let total = counter(name) + count
            try? Data(String(total).utf8).write(to: folder.appendingPathComponent(name), options: .atomic)
        }
    }

    /// Writes a new file of mode 0600 without `fsync`: Foundation's `Data.write` syncs each file to the disk, which
    /// cost 1.5 ms of a service extension's time per receipt here. A process killed after the write keeps the file
    /// (it is in the kernel's cache); only a power cut before the cache is written out could lose it.
    private static func write(_ data: Data, to path: String) throws(HeraldError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw .storage("cannot create \(path): errno \(errno)") }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { bytes in
            bytes.baseAddress.map { Foundation.write(descriptor, $0, bytes.count) } ?? 0
        }
        guard written == data.count else { throw .storage("cannot write \(path): errno \(errno)") }
    }

    private static func isReceipt(_ body: Data) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return false }
        return object["event"] is String && object["apnsID"] is String
    }
}
