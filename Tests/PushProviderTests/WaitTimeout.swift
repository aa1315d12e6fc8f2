/// A wait that ended without what it waited for (``ProviderHarness/until(_:seconds:_:)``).
struct WaitTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}
