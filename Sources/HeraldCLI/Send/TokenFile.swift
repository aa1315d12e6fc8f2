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
                let text = String(cString: buffer).trimmingCharacters(in: .whitespacesAndNewlines)
                if text.isEmpty || text.hasPrefix("#") { continue }
                return Line(number: number, text: text)
            }
        }
    }
}
