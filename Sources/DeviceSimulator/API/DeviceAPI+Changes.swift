import Foundation
import HeraldSupport
import Hummingbird

extension DeviceAPI {
    /// The longest `GET /changes` may wait, in seconds.
    static let longestChangeWait = 60

    /// What `GET /changes` answers: how many times what the device shows has changed since it started.
    struct ChangeCount: Encodable, Sendable {
        var changes: Int
    }

    /// `GET /changes?after=N&wait=S`: the count of changes of what the device shows (every event, every change of an
    /// app's pending or delivered notifications or badge). With `after`, it answers as soon as the count differs
    /// from it (at once if it does already; a count lower than `after` means the device restarted), else after
    /// `wait` seconds (25 unless given, at most ``longestChangeWait``) with the same count. A watcher (the console)
    /// reads the screen again only when this says something changed.
    static func addChangeRoutes(to router: Router<BasicRequestContext>, device: SimulatedDevice) {
        router.get("changes") { request, _ -> JSONBody<ChangeCount> in
            let query = request.uri.queryParameters
            let after = try query.get("after").map { text throws(HTTPError) -> Int in
                guard let value = Int(text), value >= 0 else {
                    throw HTTPError(
                        .badRequest,
                        message: "after must be a count of changes, 0 or more (as GET /changes gave); got \(text)")
                }
                return value
            }
            let wait =
                try query.get("wait").map { text throws(HTTPError) -> Int in
                    guard let value = Int(text), (0...longestChangeWait).contains(value) else {
                        throw HTTPError(
                            .badRequest, message: "wait is 0 to \(longestChangeWait) seconds; got \(text)")
                    }
                    return value
                } ?? 25
            let changes = device.screenChanges
            if let after, changes.count == after, wait > 0 {
                await changes.wait(after: after, upTo: .seconds(wait))
            }
            return JSONBody(value: ChangeCount(changes: changes.count))
        }
    }
}
