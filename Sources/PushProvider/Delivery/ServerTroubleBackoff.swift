import Foundation
import HeraldTime
import Synchronization

/// Slows an app's whole send while APNs answers most of it with `500 InternalServerError` or `503
/// ServiceUnavailable`: a server in trouble gets fewer requests, not every queued notification again at full speed.
///
/// Each delivery still waits its own backoff before it is resent (``DeliveryEngine``); this is the app's, on top. After
/// a chunk whose answers were mostly 500/503, the app's sends pause (1 s, doubling with each troubled chunk up to a
/// minute) and go out in small chunks that probe the server; the first chunk answered normally ends the pause.
/// `429 TooManyRequests` is not counted: APNs says it per device token, and only that delivery waits.
final class ServerTroubleBackoff: Sendable {
    /// The share of a chunk's answers that, being 500 or 503, marks the server as in trouble.
    static let troubledShare = 0.5
    /// The fewest answers a chunk needs to judge the server by (one failing device says nothing about APNs).
    static let fewestAnswers = 10
    /// The first pause, doubled with each troubled chunk after it.
    static let firstPause: TimeInterval = 1
    /// The longest pause.
    static let longestPause: TimeInterval = 60
    /// How many notifications go out at once while the server is in trouble.
    static let probeChunk = 50

    private struct Trouble {
        var pause: TimeInterval
        var until: Date
    }

    private let troubles = Mutex<[String: Trouble]>([:])

    /// How many of `wanted` notifications of `appID` may go out in the next chunk.
    func chunkSize(_ wanted: Int, appID: String) -> Int {
        troubles.withLock { $0[appID] } == nil ? wanted : min(wanted, Self.probeChunk)
    }

    /// Waits until the app's pause ends (at once when it has none).
    func wait(appID: String, clock: any WallClock) async {
        guard let until = troubles.withLock({ $0[appID]?.until }) else { return }
        let wait = until.timeIntervalSince(clock.currentDate)
        if wait > 0 { try? await clock.sleep(for: .seconds(wait)) }
    }

    /// A chunk of `appID` got `answered` answers, `troubled` of them 500 or 503.
    ///
    /// - Returns: the pause that now starts, or `nil` when the app is not (or no longer) paused.
    @discardableResult
    func record(appID: String, answered: Int, troubled: Int, now: Date) -> TimeInterval? {
        guard answered > 0 else { return nil }
        let inTrouble = Double(troubled) >= Double(answered) * Self.troubledShare
        return troubles.withLock { troubles in
            guard inTrouble else {
                troubles[appID] = nil
                return nil
            }
            // Too few answers to tell a server in trouble from a few failing devices: nothing changes.
            guard answered >= Self.fewestAnswers else { return nil }
            let pause = troubles[appID].map { min($0.pause * 2, Self.longestPause) } ?? Self.firstPause
            troubles[appID] = Trouble(pause: pause, until: now.addingTimeInterval(pause))
            return pause
        }
    }
}
