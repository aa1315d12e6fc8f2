import Foundation
import Synchronization

/// Version 4 UUIDs from a pool of system random bytes (`/dev/urandom`, kept open) refilled 4 KiB at a time.
///
/// `UUID()` on Linux opens `/dev/urandom` for every UUID; with two per accepted push that was a tenth of the
/// gateway's time.
enum RandomUUID {
    private static let pool = Mutex(Pool())

    private struct Pool {
        /// Kept open: one read refills the pool.
        let urandom = FileHandle(forReadingAtPath: "/dev/urandom")
        var bytes = [UInt8](repeating: 0, count: 4096)
        var next = 4096

        mutating func take16() -> uuid_t {
            if next + 16 > bytes.count {
                let fresh = urandom?.readData(ofLength: bytes.count) ?? Data()
                if fresh.count == bytes.count {
                    bytes = Array(fresh)
                } else {
                    var generator = SystemRandomNumberGenerator()
                    bytes = bytes.map { _ in generator.next() }
                }
                next = 0
            }
            defer { next += 16 }
            return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: next, as: uuid_t.self) }
        }
    }

    /// A new random (version 4, RFC 9562 variant) UUID.
    static func make() -> UUID {
        var value = pool.withLock { $0.take16() }
        value.6 = (value.6 & 0x0f) | 0x40
        value.8 = (value.8 & 0x3f) | 0x80
        return UUID(uuid: value)
    }
}
