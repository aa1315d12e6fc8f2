package import Foundation
import TestPacing

/// A small filesystem of its own (a `tmpfs` mounted on a fresh folder), for tests of what happens when the disk is
/// full. Mounting needs root: tests that use it are enabled by ``isAvailable``.
package struct SmallDisk {
    /// Where it is mounted.
    package let url: URL

    /// Whether this process may mount one (it runs as root, as CI does).
    package static var isAvailable: Bool { getuid() == 0 }

    /// Mounts a `tmpfs` of `kilobytes` on a new folder.
    package init(kilobytes: Int = 1024) async throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("small-disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let result = try await ChildProcess.run(
            "mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", url.path])
        guard result.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "mount failed: \(result.output)"])
        }
    }

    /// Runs `body` with a disk of `kilobytes`, then unmounts it.
    package static func with(kilobytes: Int = 1024, _ body: (SmallDisk) async throws -> Void) async throws {
        ServerSlots.requireSlot("a small disk")
        let disk = try await SmallDisk(kilobytes: kilobytes)
        do {
            try await body(disk)
        } catch {
            await disk.unmount()
            throw error
        }
        await disk.unmount()
    }

    /// Fills the disk with a file of its own until at most `leaving` bytes are free.
    package func fill(leaving: Int) throws {
        // Close-on-exec: a process another test starts meanwhile must not inherit the file and keep its space after
        // ``release()`` (a file's space is freed only when its last descriptor closes).
        let descriptor = open(url.appendingPathComponent("filler").path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while freeBytes > leaving {
            let size = min(chunk.count, max(1, freeBytes - leaving))
            guard chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, size) }) > 0 else { break }
        }
    }

    /// Frees what ``fill(leaving:)`` took.
    package func release() throws {
        try FileManager.default.removeItem(at: url.appendingPathComponent("filler"))
    }

    /// The bytes free now.
    package var freeBytes: Int {
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: url.path)
        return (attributes?[.systemFreeSize] as? NSNumber)?.intValue ?? 0
    }

    /// Unmounts it and removes the folder.
    package func unmount() async {
        // Lazily: a file a failed test left open must not keep the mount.
        _ = try? await ChildProcess.run("umount", ["-l", url.path])
        try? FileManager.default.removeItem(at: url)
    }

    /// A copy of `folder` on the ordinary disk: what a process killed now would leave behind.
    package static func copy(_ folder: URL) throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: folder, to: copy)
        return copy
    }
}
