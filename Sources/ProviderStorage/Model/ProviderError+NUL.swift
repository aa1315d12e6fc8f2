extension ProviderError {
    /// Refuses U+0000 in a text a store keeps or looks up: PostgreSQL's text cannot hold it, so neither store takes
    /// it, and the answer names the field on both.
    package static func refuseNUL(_ text: String?, field: String) throws(ProviderError) {
        if let text, text.utf8.contains(0) {
            throw .field(field, "must not contain the NUL character (U+0000); remove it")
        }
    }

    /// Refuses an identifier (an action's, a category's) with a character that does not show: a control character,
    /// a zero-width one or a bidirectional override (U+200B-U+200F, U+202A-U+202E, U+2060-U+2069, U+FEFF), which
    /// make two identifiers that look the same differ, or one read in a console or a log as another.
    package static func refuseInvisible(_ text: String?, field: String) throws(ProviderError) {
        guard let text,
            let scalar = text.unicodeScalars.first(where: { scalar in
                scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
            })
        else { return }
        let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        throw .field(
            field,
            "contains \(code), a character that does not show (a control, zero-width or direction character); "
                + "use visible characters only")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
