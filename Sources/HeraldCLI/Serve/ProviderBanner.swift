import Foundation
import PushProvider

/// What `herald serve` and `herald up` say about the provider's admin token: the token itself only on the start that
/// made it, afterwards where it is kept.
enum ProviderBanner {
    static func adminTokenLine(_ provider: PushProviderService) -> String {
        if provider.adminTokenCreated {
            return "admin token (shown this once; kept in \(provider.adminTokenPath.path), mode 0600): "
                + provider.adminToken
        }
        if provider.configuration.adminToken != nil { return "admin token: the one given with --admin-token" }
        return "admin token: in \(provider.adminTokenPath.path)"
    }

    /// The admin token as a shell word for a printed command: the file read by `cat`, so it is never printed again.
    static func adminTokenWord(_ provider: PushProviderService) -> String {
        provider.configuration.adminToken == nil
            ? "$(cat \(provider.adminTokenPath.path))" : "<the --admin-token value>"
    }
}
