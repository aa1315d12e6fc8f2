import Foundation

/// The lines of a file, read a megabyte at a time: each with its number, its bytes without the newline and whether a
/// newline ended it. A line longer than the limit is skipped to its end and given without its bytes, so one huge line
/// is never held whole.
final class LineReader {
    struct Line {
        /// 1 for the first line.
        var number: Int
        /// The line's bytes, `nil` when it is longer than the limit.
        var bytes: ArraySlice<UInt8>?
        /// Whether a newline ended it (`false` only for a last line cut short).
        var ended: Bool
    }

    private let handle: FileHandle
    private let path: String
    private let maximumLength: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var number = 0
    /// Whether the current line passed the limit and its bytes are being dropped.
    private var skipping = false

    /// Opens `path`.
    ///
    /// - Throws: ``CommandFailure`` when it cannot be read.
    init(path: String, maximumLength: Int) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: path)
        else {
            throw CommandFailure("cannot read \(path)", next: "give a file of device tokens, one per line")
        }
        self.handle = handle
        self.path = path
        self.maximumLength = maximumLength
    }

    deinit { try? handle.close() }

    /// The next line, `nil` after the last.
    func next() throws -> Line? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                number += 1
                let bytes = buffer[start..<newline]
                start = newline + 1
                if skipping {
                    skipping = false
                    return Line(number: number, bytes: nil, ended: true)
                }
                return Line(number: number, bytes: bytes.count > maximumLength ? nil : bytes, ended: true)
            }
            if atEnd {
                guard start < buffer.count || skipping else { return nil }
                number += 1
                let bytes = buffer[start...]
                start = buffer.count
                defer { skipping = false }
                return Line(number: number, bytes: skipping || bytes.count > maximumLength ? nil : bytes, ended: false)
            }
            if buffer.count - start > maximumLength {
                skipping = true
                start = buffer.count
            }
            buffer.removeSubrange(0..<start)
            start = 0
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 1 << 20)
            } catch {
                throw CommandFailure("cannot read \(path) after line \(number): \(error)")
            }
            if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { atEnd = true }
        }
    }
}
