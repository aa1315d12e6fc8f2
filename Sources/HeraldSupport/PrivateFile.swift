package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Secrets and data only their owner may read: folders are made mode 0700 and files are written mode 0600 from the
/// first byte (never world-readable for a moment, as writing and then changing the mode would be).
package enum PrivateFile {
    /// Makes `directory` (and its missing parents) and sets it to mode 0700.
    ///
    /// - Throws: when the folder cannot be made or its mode set.
    package static func makeDirectory(_ directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
    }

    /// Writes `data` to `url` with mode 0600, replacing the file at once (a temporary file renamed over it), and
    /// makes the folder it is in private too.
    ///
    /// - Throws: when the folder or the file cannot be written.
    package static func write(_ data: Data, to url: URL) throws {
        try makeDirectory(url.deletingLastPathComponent())
        // Unique per call: two writers of one file in one process must not rename each other's temporary file away.
        let temporary = url.path + ".tmp-\(getpid())-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw PrivateFileError(path: temporary, errno: errno) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.close()
            guard rename(temporary, url.path) == 0 else { throw PrivateFileError(path: url.path, errno: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Sets an existing file to mode 0600 (a database a library created); a missing file is left alone.
    package static func restrict(_ url: URL) {
        _ = chmod(url.path, 0o600)
    }
}

/// A private file that could not be written: its path and the system's reason.
package struct PrivateFileError: Error, CustomStringConvertible {
    package let path: String
    package let errno: Int32

    package var description: String { "\(path): \(String(cString: strerror(errno)))" }
}
