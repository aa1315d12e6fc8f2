import APNSCore
import Crypto
import Foundation
import HeraldSupport

/// What a device keeps across restarts under its data folder (`device.json`, mode 0600): each app's device token, the
/// secret that proves the token is this device's, and its end-to-end private key, so a restarted device keeps its
/// tokens and can still open what was sealed to it.
struct DeviceStateFile {
    /// One installed app's identity.
    struct App: Codable, Hashable {
        var bundleID: String
        var environment: String
        var token: String
        /// The device secret the gateway gave with the token (absent in files from before secrets).
        var secret: String?
        var privateKey: String
    }

    private struct Contents: Codable {
        var apps: [App]
    }

    let url: URL

    init(directory: URL) {
        url = directory.appendingPathComponent("device.json")
    }

    /// The apps saved so far; none when the file does not exist yet.
    ///
    /// - Throws: ``DeviceError`` when the file exists but cannot be read.
    func load() throws(DeviceError) -> [App] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        do {
            return try JSONDecoder().decode(Contents.self, from: Data(contentsOf: url)).apps
        } catch {
            throw DeviceError("\(url.path) cannot be read (\(error)); move it away to start the device afresh")
        }
    }

    /// Writes the apps, replacing the file at once.
    func save(_ apps: [App]) throws(DeviceError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try PrivateFile.write(try encoder.encode(Contents(apps: apps)), to: url)
        } catch {
            throw DeviceError("\(url.path) cannot be written: \(error)")
        }
    }
}

/// Something the device cannot do, with what to do about it.
package struct DeviceError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    package let message: String

    /// An error saying `message`.
    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
