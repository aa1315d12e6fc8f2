import Crypto
import Foundation
import HeraldSupport
import Synchronization

@testable import ProviderStorage

/// A delivery queue in memory, with the stores' rules (a lease counts an attempt, a `wait` gives it back, results are
/// written only to the owner's leases), failures a test can switch on, and a log of the calls the engine made: what
/// the engine's tests run it against, no database needed.
final class InMemoryDeliveryQueue: DeliveryQueue {
    /// Where a delivery is.
    enum State: Equatable {
        case queued, leased, accepted, rejected, cancelled
    }

    /// One delivery as the queue keeps it.
    struct Row {
        var delivery: LeasedDelivery
        var state = State.queued
        var notBefore: Date
        var owner: String?
        var leaseUntil: Date?
        var reason: String?
        var status: Int?
        var deactivated: String?
    }

    /// The calls a test can make fail, and how often.
    enum Call: Hashable {
        case lease, record, app
    }

    private struct Contents {
        var rows: [Int64: Row] = [:]
        var apps: [String: StoredApp] = [:]
        var notifications: [String: StoredNotification] = [:]
        var failing: [Call: Int] = [:]
        var failed: [Call: Int] = [:]
        var calls: [String] = []
        var nextID: Int64 = 1
        /// The frequency caps' send log: app, category, subject, notification, and when.
        var capLog: [String: Date] = [:]
        /// The app is resumed by someone else right after the next pause for its credentials (before its
        /// deliveries are parked).
        var resumeRightAfterPause = false
    }

    private let contents = Mutex(Contents())
    let messageKey = MessageKey(SymmetricKey(size: .bits256))
    /// Notified on every call the engine makes: what a test waits on.
    let changed = WorkSignal()

    // MARK: What a test puts in and reads

    /// Adds an app (a paused one when `pausedAt` is set).
    func add(app id: String, pausedAt: Date? = nil) {
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let app = ProviderApp(
            id: id, name: id, bundleID: "com.example.\(id)", environment: "development",
            endpoint: "https://127.0.0.1:1", hasCustomCA: false, authentication: .init(kind: "token"),
            publishableKey: "pk_\(id)", rateLimit: 0, pausedAt: pausedAt, createdAt: now, updatedAt: now)
        contents.withLock {
            $0.apps[id] = StoredApp(app: app, sealedCredentials: Data(), categories: Data(), categoriesVersion: 0)
        }
    }

    /// Adds a notification of `app` and a queued delivery of it to each of `tokens`, due at `due`; their numbers.
    @discardableResult
    func add(
        notification id: String, app: String, tokens: [String], due: Date, expiration: Int? = nil,
        createdAt: Date? = nil
    ) -> [Int64] {
        let stored = StoredNotification(
            id: id, appID: app, target: "{}", payload: Data(#"{"aps":{"alert":"hi"}}"#.utf8), pushType: "alert",
            expiration: expiration, sendAt: due, targeted: tokens.count, createdAt: createdAt ?? due)
        return contents.withLock { contents in
            contents.notifications[id] = stored
            return tokens.map { token in
                let number = contents.nextID
                contents.nextID += 1
                let delivery = LeasedDelivery(
                    id: number, notificationID: id, appID: app, address: .device(token: token), attempts: 0)
                contents.rows[number] = Row(delivery: delivery, notBefore: due)
                return number
            }
        }
    }

    /// Marks delivery `id` leased by `owner` until `until` (another engine's lease).
    func lease(_ id: Int64, to owner: String, until: Date) {
        contents.withLock { contents in
            contents.rows[id]?.state = .leased
            contents.rows[id]?.owner = owner
            contents.rows[id]?.leaseUntil = until
            contents.rows[id]?.delivery.attempts += 1
        }
    }

    /// Makes the next `times` calls of `call` fail as a database that went away does.
    func fail(_ call: Call, times: Int) {
        contents.withLock { $0.failing[call] = times }
    }

    /// How many calls of `call` failed so far.
    func failures(of call: Call) -> Int { contents.withLock { $0.failed[call] ?? 0 } }

    /// Resumes the app right after the next pause for its credentials, before its deliveries are parked: an
    /// operator's resume (or another provider's) racing the pause.
    func resumeRightAfterNextPause() { contents.withLock { $0.resumeRightAfterPause = true } }

    /// Delivery `id` as it is now.
    func row(_ id: Int64) -> Row? { contents.withLock { $0.rows[id] } }

    /// Every delivery in number order.
    var rows: [Row] { contents.withLock { $0.rows.values.sorted { $0.delivery.id < $1.delivery.id } } }

    /// The calls the engine made that change the queue beyond leasing and recording, in order (`"extendLeases"`,
    /// `"cancelNotification n"`, `"wakeWaiting app"`, ...).
    var calls: [String] { contents.withLock { $0.calls } }

    // MARK: DeliveryQueue

    func app(id: String) throws(ProviderError) -> StoredApp? {
        try change(.app) { $0.apps[id] }
    }

    func notification(id: String) -> StoredNotification? {
        contents.withLock { $0.notifications[id] }
    }

    func publicKeys(appID: String, tokens: [String]) -> [String: String] { [:] }
    func deviceSettings(appID: String, tokens: [String]) -> [String: DeviceSettings] { [:] }
    func timeZones(appID: String, tokens: [String]) -> [String: String] { [:] }

    func capSends(appID: String, category: String, subjects: [String], since: Date) -> [String: Set<String>] {
        contents.withLock { contents in
            var sends: [String: Set<String>] = [:]
            for (key, at) in contents.capLog where at >= since {
                let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
                if parts[0] == appID, parts[1] == category, subjects.contains(parts[2]) {
                    sends[parts[2], default: []].insert(parts[3])
                }
            }
            return sends
        }
    }

    func recordCapSends(appID: String, category: String, notificationID: String, subjects: [String], at: Date) {
        contents.withLock { contents in
            for subject in subjects {
                let key = [appID, category, subject, notificationID].joined(separator: "\u{0}")
                if contents.capLog[key] == nil { contents.capLog[key] = at }
            }
        }
    }

    func lease(owner: String, limit: Int, now: Date, leaseFor: TimeInterval) throws(ProviderError)
        -> [LeasedDelivery]
    {
        try change(.lease) { contents in
            let due = contents.rows.values.filter { $0.state == .queued && $0.notBefore <= now }
                .sorted { ($0.notBefore, $0.delivery.id) < ($1.notBefore, $1.delivery.id) }.prefix(limit)
            return due.map { row in
                let id = row.delivery.id
                contents.rows[id]?.state = .leased
                contents.rows[id]?.owner = owner
                contents.rows[id]?.leaseUntil = now.addingTimeInterval(leaseFor)
                contents.rows[id]?.delivery.attempts += 1
                return contents.rows[id]!.delivery
            }
        }
    }

    func record(_ results: [DeliveryResult], owner: String) throws(ProviderError) {
        try change(.record) { contents in
            for result in results {
                let id = result.id
                guard var row = contents.rows[id], row.state == .leased, row.owner == owner else { continue }
                row.owner = nil
                row.leaseUntil = nil
                switch result {
                case .accepted:
                    row.state = .accepted
                    row.status = 200
                case .rejected(_, _, let status, let reason, _, let deactivation):
                    row.state = .rejected
                    row.status = status
                    row.reason = reason
                    row.deactivated = deactivation?.token
                case .retry(_, let reason, let notBefore):
                    row.state = .queued
                    row.reason = reason
                    row.notBefore = notBefore
                case .wait(_, let reason, let notBefore):
                    row.state = .queued
                    row.reason = reason
                    row.notBefore = notBefore
                    row.delivery.attempts -= 1
                }
                contents.rows[id] = row
            }
        }
    }

    func reclaimExpiredLeases(now: Date) -> Int {
        change { contents in
            let expired = contents.rows.values.filter { $0.state == .leased && $0.leaseUntil! < now }
            for row in expired { contents.rows[row.delivery.id]?.requeue(spending: true) }
            return expired.count
        }
    }

    func releaseLeases(owner: String) -> Int {
        release { $0.owner == owner }
    }

    func releaseLease(owner: String, until: Date) -> Int {
        contents.withLock { $0.calls.append("releaseLease") }
        return release { $0.owner == owner && $0.leaseUntil == until }
    }

    func extendLeases(owner: String, until: Date) -> Int {
        change { contents in
            contents.calls.append("extendLeases")
            let held = contents.rows.values.filter { $0.state == .leased && $0.owner == owner }
            for row in held { contents.rows[row.delivery.id]?.leaseUntil = until }
            return held.count
        }
    }

    func heartbeat(owner: String, staleAfter: TimeInterval) -> Int { 0 }

    func announceWork() async {}

    func workAnnouncements() -> AsyncStream<Void> { AsyncStream { $0.finish() } }

    func liveProviders(staleAfter: TimeInterval) -> Int { 1 }

    func wakeWaiting(appID: String, reason: String, now: Date) -> Int {
        change { contents in
            contents.calls.append("wakeWaiting \(appID)")
            let waiting = contents.rows.values.filter {
                $0.state == .queued && $0.delivery.appID == appID && $0.reason == reason && $0.notBefore > now
            }
            for row in waiting { contents.rows[row.delivery.id]?.notBefore = now }
            return waiting.count
        }
    }

    func park(appID: String, reason: String, until: Date) -> Int {
        change { contents in
            contents.calls.append("park \(appID) \(reason)")
            let queued = contents.rows.values.filter { $0.state == .queued && $0.delivery.appID == appID }
            for row in queued {
                contents.rows[row.delivery.id]?.notBefore = until
                contents.rows[row.delivery.id]?.reason = reason
            }
            return queued.count
        }
    }

    func pauseForCredentials(appID: String, reason: String, at: Date) -> Bool {
        change { contents in
            guard contents.apps[appID]?.app.pausedAt == nil else { return false }
            contents.apps[appID]?.app.pausedAt = at
            contents.apps[appID]?.app.pauseReason = reason
            contents.calls.append("pauseForCredentials \(appID) \(reason)")
            if contents.resumeRightAfterPause {
                contents.resumeRightAfterPause = false
                contents.apps[appID]?.app.pausedAt = nil
                contents.apps[appID]?.app.pauseReason = nil
                contents.calls.append("resumed \(appID)")
            }
            return true
        }
    }

    func cancelNotification(id: String, at: Date) -> Int {
        change { contents in
            contents.calls.append("cancelNotification \(id)")
            let queued = contents.rows.values.filter { $0.state == .queued && $0.delivery.notificationID == id }
            for row in queued { contents.rows[row.delivery.id]?.state = .cancelled }
            return queued.count
        }
    }

    // MARK: Helpers

    private func release(_ matches: (Row) -> Bool) -> Int {
        change { contents in
            let held = contents.rows.values.filter { $0.state == .leased && matches($0) }
            for row in held { contents.rows[row.delivery.id]?.requeue(spending: false) }
            return held.count
        }
    }

    /// Runs `body` on the contents (failing first when `call` is switched to fail), then tells waiting tests.
    private func change<T>(_ call: Call? = nil, _ body: (inout Contents) -> T) throws(ProviderError) -> T {
        let result: Result<T, ProviderError> = contents.withLock { contents in
            if let call, let left = contents.failing[call], left > 0 {
                contents.failing[call] = left - 1
                contents.failed[call, default: 0] += 1
                return .failure(.storage("the database is restarting (a test's failure)"))
            }
            return .success(body(&contents))
        }
        changed.notify()
        return try result.get()
    }

    private func change<T>(_ body: (inout Contents) -> T) -> T {
        let result = contents.withLock { body(&$0) }
        changed.notify()
        return result
    }
}

extension InMemoryDeliveryQueue.Row {
    /// Back in the queue; the lease's attempt given back unless it was spent (a lease that ran out was sent).
    fileprivate mutating func requeue(spending: Bool) {
        state = .queued
        owner = nil
        leaseUntil = nil
        if !spending { delivery.attempts -= 1 }
    }
}

extension DeliveryResult {
    /// The delivery it is the result of.
    var id: Int64 {
        switch self {
        case .accepted(let id, _, _, _), .rejected(let id, _, _, _, _, _), .retry(let id, _, _), .wait(let id, _, _):
            id
        }
    }
}
