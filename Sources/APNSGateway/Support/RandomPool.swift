import Foundation
import Synchronization

/// Random bytes and version 4 UUIDs from a pool of system random bytes (`/dev/urandom`, kept open) refilled 4 KiB at
/// a time.
///
/// `UUID()` on Linux opens `/dev/urandom` for every UUID; with two per accepted push that was a tenth of the
/// gateway's time. A random byte from `SystemRandomNumberGenerator` is a `getrandom` call: a new device token took 32.
enum RandomPool {
    private static let pool = Mutex(Pool())

    private struct Pool {
        /// Kept open: one read refills the pool.
        let urandom = FileHandle(forReadingAtPath: "/dev/urandom")
        var bytes = [UInt8](repeating: 0, count: 4096)
        var next = 4096

        mutating func take16() -> uuid_t {
            refillIfShort(of: 16)
            defer { next += 16 }
            return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: next, as: uuid_t.self) }
        }

        /// `count` bytes (at most the pool's size).
        mutating func take(_ count: Int) -> [UInt8] {
            refillIfShort(of: count)
            defer { next += count }
            return Array(bytes[next..<(next + count)])
        }

        private mutating func refillIfShort(of count: Int) {
            if next + count > bytes.count {
                let fresh = urandom?.readData(ofLength: bytes.count) ?? Data()
                if fresh.count == bytes.count {
                    bytes = Array(fresh)
                } else {
                    var generator = SystemRandomNumberGenerator()
                    bytes = bytes.map { _ in generator.next() }
                }
                next = 0
            }
        }
    }

    /// `count` random bytes, 1 to 4,096.
    static func bytes(_ count: Int) -> [UInt8] {
        precondition((1...4096).contains(count))
        return pool.withLock { $0.take(count) }
    }

    /// A new random (version 4, RFC 9562 variant) UUID.
    static func uuid() -> UUID {
        var value = pool.withLock { $0.take16() }
        value.6 = (value.6 & 0x0f) | 0x40
        value.8 = (value.8 & 0x3f) | 0x80
        return UUID(uuid: value)
    }
}
