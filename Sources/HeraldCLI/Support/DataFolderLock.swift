import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A data folder held by one herald process: two processes on one folder would hand out each other's device tokens
/// and write one database from two writers, so the second is refused with the first one's process ID.
///
/// The lock is an advisory `flock` on `DATA/.lock`; the kernel releases it when the process ends, however it ends,
/// so a killed process never leaves a stale lock behind.
final class DataFolderLock: Sendable {
    private let descriptor: Int32
    private let folder: URL
    /// Whether this process made the folder (so a failed start can take it away again).
    private let created: Bool

    /// Takes the folder (creating it, mode 0700, when it is missing).
    ///
    /// - Parameters:
    ///   - folder: the data folder.
    ///   - command: what holds it, for the other process's message (`herald up`).
    ///   - option: the flag that chooses another folder (`--data`).
    /// - Throws: ``CommandFailure`` naming the process that holds it.
    init(_ folder: URL, command: String, option: String = "--data") throws(CommandFailure) {
        let path = folder.path
        let created = !FileManager.default.fileExists(atPath: path)
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure(
                "cannot create the data folder \(path): \(error.localizedDescription)",
                next: "choose a folder you can write with \(option) DIR")
        }
        let lockPath = folder.appendingPathComponent(".lock").path
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure(
                "cannot open \(lockPath): \(String(cString: strerror(errno)))",
                next: "choose a folder you can write with \(option) DIR")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder =
                (try? String(contentsOfFile: lockPath, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(descriptor)
            throw CommandFailure(
                "\(path) is in use by another herald process (\(holder.isEmpty ? "its pid is unknown" : holder))",
                next: "stop that process, or give this one a folder of its own with \(option) DIR")
        }
        ftruncate(descriptor, 0)
        let holder = "pid \(getpid()), \(command)\n"
        _ = holder.withCString { write(descriptor, $0, strlen($0)) }
        self.descriptor = descriptor
        self.folder = folder
        self.created = created
    }

    /// A start that failed leaves nothing behind: the folder goes when this process made it.
    func discardIfNew() {
        if created { try? FileManager.default.removeItem(at: folder) }
    }

    deinit {
        close(descriptor)
    }
}
