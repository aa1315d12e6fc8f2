/// Strings: escapes decoded, UTF-8 checked where it stands, and the words of an error.
extension JSONParser {
    /// Parses a string starting at its opening quote, decoding escapes and checking the UTF-8 it contains.
    mutating func parseString() throws(JSONSyntaxError) -> String {
        guard building else {
            try checkString()
            return ""
        }
        index += 1
        var scalars: [UInt8] = []
        var segmentStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                scalars.append(contentsOf: bytes[segmentStart..<index])
                index += 1
                guard let string = String(validating: scalars, as: UTF8.self) else {
                    throw error("a string is not valid UTF-8", at: segmentStart)
                }
                return string
            }
            if byte < 0x20 { throw error("control characters must be escaped inside strings") }
            if byte == UInt8(ascii: "\\") {
                scalars.append(contentsOf: bytes[segmentStart..<index])
                try appendEscape(to: &scalars)
                segmentStart = index
            } else {
                index += 1
            }
        }
        throw error("a string is not closed before the end of the text")
    }

    /// Reads a string as ``parseString()`` does without keeping it: the bytes between escapes are checked as UTF-8
    /// where they stand (an escape always writes a whole character, so a string is valid UTF-8 exactly when each run
    /// of its bytes between escapes is).
    mutating func checkString() throws(JSONSyntaxError) {
        index += 1
        var segmentStart = index
        var nonASCII = false
        var escaped: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                if nonASCII, !isValidUTF8(segmentStart..<index) {
                    // The whole string is not valid UTF-8 either; ``JSONValue/checkSyntax(of:)`` parses again for
                    // the position the full parser gives.
                    throw error("a string is not valid UTF-8", at: segmentStart)
                }
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return
                }
                // An escape is checked as the parser reads it; what it decodes to is thrown away.
                escaped.removeAll(keepingCapacity: true)
                try appendEscape(to: &escaped)
                nonASCII = false
                segmentStart = index
                continue
            }
            if byte < 0x20 { throw error("control characters must be escaped inside strings") }
            if byte >= 0x80 { nonASCII = true }
            index += 1
        }
        throw error("a string is not closed before the end of the text")
    }

    private func isValidUTF8(_ range: Range<Int>) -> Bool {
        var iterator = bytes[range].makeIterator()
        var decoder = Unicode.UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    private mutating func appendEscape(to output: inout [UInt8]) throws(JSONSyntaxError) {
        index += 1
        guard index < bytes.count else { throw error("the text ends inside an escape sequence") }
        let escaped = bytes[index]
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"): output.append(contentsOf: try parseUnicodeEscape())
        default: throw error("\\\(describe(escaped)) is not a JSON escape sequence", at: index - 2)
        }
    }

    private mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> [UInt8] {
        let first = try parseHex4()
        var scalarValue = UInt32(first)
        if (0xD800...0xDBFF).contains(first) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("a high surrogate \\u escape must be followed by a low surrogate") }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw error("expected a low surrogate \\u escape") }
            scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw error("a low surrogate \\u escape has no high surrogate before it")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw error("\\u escape is not a Unicode scalar") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw error("a \\u escape needs four hex digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let digit = hexValue(bytes[index]) else { throw error("a \\u escape needs four hex digits") }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    func error(_ message: String, at position: Int? = nil) -> JSONSyntaxError {
        let offset = min(position ?? index, bytes.count)
        var line = 1
        var lineStart = 0
        for (i, byte) in bytes[..<offset].enumerated() where byte == 0x0A {
            line += 1
            lineStart = i + 1
        }
        let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1
        return JSONSyntaxError(message: message, offset: offset, line: line, column: column)
    }
}
