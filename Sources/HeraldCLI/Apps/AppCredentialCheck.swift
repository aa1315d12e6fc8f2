import APNSClient
import APNSCore
import ArgumentParser
import Foundation
import NIOHTTP1

/// `herald apps create` and `herald apps update --auth-key/--cert` check the credentials they set before saying done,
/// as `herald doctor --app` does (the provider sends a background push, not stored, to a token no device has), so a
/// wrong team ID is told now, not by a broadcast.
enum AppCredentialCheck {
    /// The provider's check of app `appID`: the text to print after `done`, and its answer; throws `ExitCode(1)`
    /// after printing when APNs refused the credentials.
    static func run(_ call: ServiceCall, appID: String, done: String, common: AppsCommand.Common, answer: JSONValue)
        async throws
    {
        let check = try await call.call(.POST, ProviderCheck.path(of: appID))
        let checks = ProviderCheck.checks(in: check)
        let failed = checks.isEmpty || checks.contains { $0.outcome == .failed }
        var shown = answer.object ?? JSONObject([])
        shown["check"] = check
        common.print(
            .object(shown),
            done + checks.map { "  " + $0.text.replacingOccurrences(of: "\n", with: "\n  ") + "\n" }.joined()
                + (failed
                    ? "APNs refused app \(appID)'s credentials: correct them with herald apps update \(appID) "
                        + "--auth-key TEAMID:KEYID:FILE (or --cert FILE); until then its notifications wait, spending "
                        + "no attempt (--no-check skips this check, offline)\n"
                    : ""))
        if failed { throw ExitCode(1) }
    }
}
