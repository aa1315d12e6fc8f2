/// Text from outside (an app's name, a device's tag, a server's error) made safe to print on a terminal: control
/// characters are written out instead of sent, so a value cannot clear the screen, move the cursor, retitle the
/// window or print a fake line. Line feeds and tabs stay.
package enum TerminalText {
    /// `text` with every control character (C0 but line feed and tab, DEL, C1) and every bidirectional override
    /// written as `\u{XX}`.
    package static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional embeddings, overrides and isolates
        default: false
        }
    }
}

extension CommandIO {
    /// These streams, writing ``TerminalText/safe(_:)`` text: for commands that print what servers and users stored.
    package var terminalSafe: CommandIO {
        let (write, writeError) = (self.write, self.writeError)
        return CommandIO(
            write: { write(TerminalText.safe($0)) }, writeError: { writeError(TerminalText.safe($0)) },
            readInput: readInput)
    }
}
