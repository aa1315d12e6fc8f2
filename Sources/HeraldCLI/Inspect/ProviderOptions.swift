import ArgumentParser
import Foundation

/// Where a command finds the provider (`herald status`, `devices`, `log`, `doctor --app`): the flags, else the
/// `running.json` of a `herald up` or `serve` started from this folder.
struct ProviderOptions: ParsableArguments {
    @Option(name: .customLong("provider"), help: "The provider's URL (default: from running.json).")
    var providerURL: String?

    @Option(name: .customLong("provider-token-file"), help: "The provider's admin token file.")
    var providerTokenFile: String?

    /// The provider to ask: its URL and admin token.
    ///
    /// - Throws: ``CommandFailure`` when no provider is named or running here; `UsageError` for an unreadable token.
    func provider() throws -> (url: String, token: String) {
        let found = ServiceOptions.running().first { $0.file.isAlive && $0.file.provider != nil }?.file.provider
        guard let url = providerURL ?? found?.url else {
            throw CommandFailure(
                "no provider found: nothing in \(ServiceOptions.folders.joined(separator: ", ")) says one is running",
                next: "start herald up (or herald serve), or give --provider URL --provider-token-file FILE")
        }
        guard let file = providerTokenFile ?? found?.adminTokenFile else {
            throw UsageError("--provider-token-file FILE: the provider's admin token (its DATA/provider/admin-token)")
        }
        return (url, try ServiceOptions.token(file, option: "--provider-token-file"))
    }
}
