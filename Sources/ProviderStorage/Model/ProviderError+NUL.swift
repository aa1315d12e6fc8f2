extension ProviderError {
    /// Refuses U+0000 in a text a store keeps or looks up: PostgreSQL's text cannot hold it, so neither store takes
    /// it, and the answer names the field on both.
    package static func refuseNUL(_ text: String?, field: String) throws(ProviderError) {
        if let text, text.utf8.contains(0) {
            throw .field(field, "must not contain the NUL character (U+0000); remove it")
        }
    }
}
