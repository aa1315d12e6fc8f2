import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The lines of a token file (or standard input), read as they are needed, never loaded whole. Blank lines and lines
/// starting with `#` are skipped; spaces around a token are trimmed.
struct TokenFile: Sequence {
    /// A line with its number, for messages.
    struct Line {
        var number: Int
        var text: String
    }

    let path: String

    /// Opens the file (`-` for standard input) to check it can be read.
    init(path: String) throws(UsageError) {
        if path != "-" {
            guard let file = fopen(path, "r") else { throw UsageError("cannot read the token file \(path)") }
            fclose(file)
        }
        self.path = path
    }

    func makeIterator() -> Iterator {
        Iterator(file: path == "-" ? fdopen(STDIN_FILENO, "r") : fopen(path, "r"), closes: path != "-")
    }

    final class Iterator: IteratorProtocol {
        private let file: UnsafeMutablePointer<FILE>?
        private let closes: Bool
        private var buffer: UnsafeMutablePointer<CChar>?
        private var capacity = 0
        private var number = 0

        init(file: UnsafeMutablePointer<FILE>?, closes: Bool) {
            self.file = file
            self.closes = closes
        }

        deinit {
            free(buffer)
            if closes, let file { fclose(file) }
        }

        func next() -> Line? {
            guard let file else { return nil }
            while true {
                let length = getline(&buffer, &capacity, file)
                guard length >= 0, let buffer else { return nil }
                number += 1
                let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
                var start = 0
                var end = length
                while start < end, Self.isSpace(bytes[start]) { start += 1 }
                while end > start, Self.isSpace(bytes[end - 1]) { end -= 1 }
                if start == end || bytes[start] == UInt8(ascii: "#") { continue }
                return Line(number: number, text: String(decoding: bytes[start..<end], as: UTF8.self))
            }
        }

        private static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }
    }
}
