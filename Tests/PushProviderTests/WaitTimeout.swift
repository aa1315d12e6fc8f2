/// A wait that ended without what it waited for (``ProviderHarness/until(_:seconds:_:)``).
struct WaitTimeout: Error, CustomStringConvertible {
    /// What the test waited for.
    let what: String
    /// How long it waited.
    let waited: Duration
    /// What it saw last.
    let lastSeen: String

    var description: String { "waited \(waited) for \(what) and it did not happen (\(lastSeen))" }
}
