import Foundation

/// Receipts waiting to be sent, one small file each in HeraldKit's folder, so the app and its extensions share them
/// and a process killed a moment later (a service extension out of time) loses none.
///
/// Files are named by the time they were queued, so the oldest is sent first. A file being sent is renamed with
/// `.sending.PID-START-TAG` first (the process that sends it, by its ID and start time, and the queue in it), so two
/// queues never send the same one, and a queue that finds an older receipt claimed by another that runs waits for it
/// instead of sending a newer one: receipts leave in the order they were queued, across the app and its extensions.
/// A claim whose process is gone is taken again at once; one whose process cannot be told gone (an app's sandbox)
/// after ``staleClaim`` (the provider records a receipt sent twice once: it is the same event at the same time).
/// Past ``limit`` files the oldest are dropped, counted and reported.
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
    /// How long a file may stay claimed by a process that cannot be told dead before another process sends it.
    static let staleClaim: TimeInterval = 120
    private let problems: ProblemLog
    /// The folder is listed again after this many appends, to count what other processes queued.
    static let appendsBetweenListings = 100

    init(folder: URL, limit: Int, problems: ProblemLog) throws(HeraldError) {
        self.folder = folder.appendingPathComponent("receipts", isDirectory: true)
        self.limit = max(1, limit)
        self.problems = problems
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

    /// Removes the queued receipt `base` under whichever name it has now: a sender may claim it (renaming it
    /// `….sending.…`) or give it back between a listing and the removal, so a name that is gone is looked up again.
    ///
    /// - Returns: whether it was removed (`false`: it is gone, sent meanwhile).
    private func remove(base: Substring) -> Bool {
        for _ in 0..<4 {
            let current = names().filter { Self.base(of: $0) == base }
            guard !current.isEmpty else { return false }
            for name in current
            where (try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))) != nil {
                return true
            }
        }
        return false
    }

    /// Counts the files again and removes the oldest past room for one more.
    private func dropOldest() {
        let waiting = names()
        let excess = waiting.count - limit + 1
        var removed = 0
        if excess > 0 {
            for old in waiting.prefix(excess) where remove(base: Self.base(of: old)) { removed += 1 }
            if removed > 0 {
                addToCounter("dropped", removed)
                problems.add(
                    .storage(
                        "the receipt queue was full (\(limit) receipts): the \(removed) oldest were dropped, not sent"))
            }
        }
        lock.withLock {
            counted = waiting.count - removed
            appendsSinceListing = 0
        }
    }

    /// The files waiting, oldest first, claimed ones included (`.json.sending.PID-START`).
    func names() -> [String] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return all.filter { $0.hasSuffix(".json") || $0.contains(".json.sending") }.sorted()
    }

    /// A queued file's name without its claim: `TIME-TAG.json`.
    static func base(of name: String) -> Substring {
        name.firstRange(of: ".sending").map { name[..<$0.lowerBound] } ?? name[...]
    }

    /// What ``claimNext(in:from:)`` found.
    enum Claim {
        /// A receipt this process now holds: its file, its body, and the position after it in the listing.
        case claimed(file: URL, body: Data, next: Int)
        /// The oldest receipt left is being sent by another process that runs: the order waits for it.
        case waiting
        /// The folder changed since it was listed (a file claimed or sent meanwhile): list it again.
        case listAgain
        /// Nothing is left to send in the listing.
        case none
    }

    /// Takes the oldest receipt of `names` (a listing, oldest first), from `start` on, unless another process that
    /// runs is sending an older one.
    ///
    /// A file that cannot be read is removed, counted as corrupt and reported.
    func claimNext(in names: [String], from start: Int) -> Claim {
        let manager = FileManager.default
        let mine = ".sending." + ProcessIdentity.current.text + "-" + String(processTag, radix: 16)
        var index = start
        while index < names.count {
            let name = names[index]
            index += 1
            let base = Self.base(of: name)
            if base.count != name.count, !isAbandoned(claim: name) { return .waiting }
            let claimed = folder.appendingPathComponent(base + mine)
            // The rename is the claim: it fails when another process claimed or sent the file since the listing.
            guard (try? manager.moveItem(at: folder.appendingPathComponent(name), to: claimed)) != nil else {
                return .listAgain
            }
            // A rename keeps the file's time, which is when it was queued: the claim's age counts from now.
            try? manager.setAttributes([.modificationDate: Date()], ofItemAtPath: claimed.path)
            guard let body = try? Data(contentsOf: claimed), Self.isReceipt(body) else {
                remove(claimed)
                addToCounter("corrupt", 1)
                problems.add(.storage("a queued receipt (\(base)) could not be read: it was removed, not sent"))
                continue
            }
            return .claimed(file: claimed, body: body, next: index)
        }
        return .none
    }

    /// Whether the claim `name` was left by a process that is gone (or by this queue, which sends one file at a time
    /// and holds none between passes), or was made longer than ``staleClaim`` ago.
    private func isAbandoned(claim name: String) -> Bool {
        let owner = name.split(separator: ".").last?.split(separator: "-") ?? []
        if owner.count == 3, let pid = Int32(owner[0]), let start = UInt64(owner[1]),
            let tag = UInt32(owner[2], radix: 16)
        {
            let process = ProcessIdentity(pid: pid, start: start)
            if process == ProcessIdentity.current ? tag == processTag : !process.isRunning { return true }
        }
        let file = folder.appendingPathComponent(name)
        let modified = (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate]) as? Date
        return modified.map { Date().timeIntervalSince($0) > Self.staleClaim } ?? false
    }

    /// Gives a claimed receipt back (it was not sent), keeping its place in the order.
    func release(_ file: URL) {
        let base = Self.base(of: file.lastPathComponent)
        try? FileManager.default.moveItem(at: file, to: folder.appendingPathComponent(String(base)))
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

    /// Adds to a counter file under an exclusive lock on `counters.lock` in the folder: the app and its extensions
    /// count into the same files, and a read-add-write of two processes at once would lose one of the additions.
    private func addToCounter(_ name: String, _ count: Int) {
        lock.withLock {
            let descriptor = open(folder.appendingPathComponent("counters.lock").path, O_RDWR | O_CREAT, 0o600)
            if descriptor >= 0 { _ = flock(descriptor, LOCK_EX) }
            defer {
                if descriptor >= 0 {
                    _ = flock(descriptor, LOCK_UN)
                    close(descriptor)
                }
            }
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
