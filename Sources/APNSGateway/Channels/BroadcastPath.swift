/// The `:path` of a broadcast, `/4/broadcasts/apps/<bundle ID>` (Apple's own sample leaves out the first `/`, so that
/// form is read too).
struct BroadcastPath {
    static let prefix = "/4/broadcasts/apps/"

    /// The bundle ID in the path, possibly empty or with more segments (``ProviderRequestProcessor`` says what is
    /// wrong with it).
    let bundleID: Substring

    /// `nil` when the path is not a broadcast's at all.
    init?(_ path: String) {
        let rooted = path.hasPrefix("/") ? path : "/" + path
        guard rooted.hasPrefix(Self.prefix) else { return nil }
        bundleID = rooted.dropFirst(Self.prefix.count)
    }
}
