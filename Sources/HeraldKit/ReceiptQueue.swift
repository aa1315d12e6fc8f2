import Foundation

/// Receipts waiting to be sent, one small file each in HeraldKit's folder, so the app and its extensions share them
/// and a process killed a moment later (a service extension out of time) loses none.
///
/// Files are named by the time they were queued, so the oldest is sent first. A file being sent is renamed with
/// `.sending` first, so two processes never send the same one; a claim left by a process that was killed is taken
/// again after ``staleClaim`` (the provider records a receipt sent twice once: it is the same event at the same
/// time). Past ``limit`` files the oldest are dropped, and counted.
final class ReceiptQueue: @unchecked Sendable {
    // Safety: `sequence` is read and written only under `lock`; the rest is immutable.
    let folder: URL
    let limit: Int
    private let lock = NSLock()
    private var sequence: UInt32 = 0
    private let processTag = UInt32.random(in: 0...UInt32.max)
    /// How long a claimed file may stay claimed before another process sends it.
    static let staleClaim: TimeInterval = 120

    init(folder: URL, limit: Int) throws(HeraldError) {
        self.folder = folder.appendingPathComponent("receipts", isDirectory: true)
        self.limit = max(1, limit)
        do {
            try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        } catch {
            throw .storage("cannot create \(self.folder.path): \(error.localizedDescription)")
        }
    }

    /// Writes `receipt` to its own file, dropping the oldest when the queue is full.
    ///
    /// - Throws: ``HeraldError/storage(_:)`` when the file cannot be written (a full disk).
    func append(_ receipt: Receipt) throws(HeraldError) {
        let name = lock.withLock {
            sequence &+= 1
            let nanos = UInt64(Date().timeIntervalSince1970 * 1_000_000) * 1000 + UInt64(sequence % 1000)
            return String(format: "%020llu-%08x.json", nanos, processTag)
        }
        let waiting = names()
        if waiting.count >= limit {
            for old in waiting.prefix(waiting.count - limit + 1) {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(old))
            }
            addToCounter("dropped", waiting.count - limit + 1)
        }
        do {
            try receipt.feedbackJSON.write(to: folder.appendingPathComponent(name), options: .atomic)
        } catch {
            throw .storage("the receipt was not queued (\(error.localizedDescription)); it is sent from memory")
        }
    }

    /// The files waiting, oldest first, claimed ones included (their names end in `.sending`).
    func names() -> [String] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return all.filter { $0.hasSuffix(".json") || $0.hasSuffix(".json.sending") }.sorted()
    }

    /// Takes the oldest receipt no other process is sending.
    ///
    /// - Returns: the claimed file and its body, or nil when nothing is waiting. A file that cannot be read is
    ///   removed and counted as corrupt.
    func claimNext() -> (file: URL, body: Data)? {
        let manager = FileManager.default
        for name in names() {
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
                try? manager.removeItem(at: file)
                addToCounter("corrupt", 1)
                continue
            }
            return (file, body)
        }
        return nil
    }

    /// Gives a claimed receipt back (it was not sent), keeping its place in the order.
    func release(_ file: URL) {
        try? FileManager.default.moveItem(at: file, to: file.deletingPathExtension())
    }

    /// Forgets a receipt that was sent, or that the provider will never take.
    func remove(_ file: URL) {
        try? FileManager.default.removeItem(at: file)
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

    private static func isReceipt(_ body: Data) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return false }
        return object["event"] is String && object["apnsID"] is String
    }
}
