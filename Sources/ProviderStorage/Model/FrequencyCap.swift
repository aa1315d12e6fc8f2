import Foundation

/// At most ``limit`` alerts of one ``category`` (a name the team gives its notifications: `marketing`, `digest`) to
/// one user, or one device, in any ``window`` of time: an app's setting. An alert over the cap is not sent.
package struct FrequencyCap: Codable, Sendable, Hashable {
    /// The notifications it counts: those created with this `capCategory`.
    package var category: String
    /// How many of them one subject may get in the window: 1 to ``maxLimit``.
    package var limit: Int
    /// The rolling window, in seconds: ``minWindow`` to ``maxWindow``.
    package var window: Int
    /// `user` (all of a user's devices count as one; a device without a user as itself) or `device`.
    package var per: String

    package init(category: String, limit: Int, window: Int, per: String) {
        self.category = category
        self.limit = limit
        self.window = window
        self.per = per
    }

    /// The most alerts a cap may allow in its window.
    package static let maxLimit = 1_000
    /// The shortest window: a minute.
    package static let minWindow = 60
    /// The longest window: 30 days (what the send log keeps).
    package static let maxWindow = 30 * 86_400
    /// The most caps an app may have.
    package static let maxCaps = 20

    /// Whether it counts per user (else per device).
    package var perUser: Bool { per == "user" }

    /// The subject a delivery counts against: the device's user (`u:` and the ID) for a cap per user when the device
    /// has one, else the device (its token: hex digits, so never a user's `u:`).
    package func subject(token: String, userID: String?) -> String {
        if perUser, let userID { return "u:" + userID }
        return token
    }

    /// A list of caps as stored: JSON.
    package static func stored(_ caps: [FrequencyCap]?) -> String? {
        guard let caps, !caps.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(caps)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Stored caps; `nil` for none (or a text that does not parse).
    package static func caps(stored: String?) -> [FrequencyCap]? {
        guard let stored, let caps = try? JSONDecoder().decode([FrequencyCap].self, from: Data(stored.utf8)),
            !caps.isEmpty
        else { return nil }
        return caps
    }
}
