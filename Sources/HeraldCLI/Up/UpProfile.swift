import Foundation

/// The built-in profile `up`: what a `herald up` running from this folder (`./.herald/up`) listens on, with its
/// development signing key and demo app, so `herald send --profile up --token T --title Hi` needs nothing else.
enum UpProfile {
    /// The profile, while a `herald up` from this folder runs.
    static func current(folder: String = "./.herald/up") -> [String: String]? {
        let root = URL(fileURLWithPath: folder).standardizedFileURL
        guard let running = RunningFile.read(from: root), running.isAlive, let gateway = running.gateway else {
            return nil
        }
        var profile = [
            "url": gateway.url, "ca-file": gateway.caFile, "gateway": gateway.url,
            "gateway-token-file": gateway.adminTokenFile,
            "auth-key": "\(DevelopmentSigningKey.teamID):\(DevelopmentSigningKey.keyID):"
                + root.appendingPathComponent("AuthKey_\(DevelopmentSigningKey.keyID).p8").path,
            "topic": DemoApp.bundleID,
        ]
        if let manageURL = gateway.manageURL { profile["channels.url"] = manageURL }
        if let provider = running.provider {
            profile["provider"] = provider.url
            profile["provider-token-file"] = provider.adminTokenFile
        }
        return profile
    }
}
