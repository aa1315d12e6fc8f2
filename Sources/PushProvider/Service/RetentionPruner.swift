import Foundation
import HeraldSupport
import HeraldTime
import Logging
import ProviderStorage

/// Keeps the provider's records in bounded space: for every app, deletes the rows older than its retention
/// (``RetentionDays``, the provider's defaults where it sets none) in small batches, a pause between two, so sending
/// never waits on it. A notification's counts stay (History and the breakdown still answer); its rows per device go
/// after `deliveries` days, its receipts after `traces`, its responses after `responses`, and the notification itself
/// with its counts after ``Settings/history``.
struct RetentionPruner: Sendable {
    struct Settings: Sendable {
        /// The retention of apps that set none.
        var defaults = RetentionDays.standard
        /// How long a notification and its counts are kept once its deliveries' rows are gone: 400 days, so a year
        /// ago stays comparable.
        var historyDays = 400
        /// How long the audit log's entries are kept (``AuditLog``), whatever the apps' retention.
        var auditDays = 400
        /// How often a pass runs.
        var interval: Duration = .seconds(600)
        /// Rows deleted per statement (one short transaction each).
        var batch = 2000
        /// The pause between two batches, in which the workers' writes go first.
        var pause: Duration = .milliseconds(20)
    }

    let store: any ProviderStore
    let settings: Settings
    let metrics: ProviderMetrics
    let failures: FailureReporter
    let clock: any WallClock
    /// The provider's record of changes, told after a pass that deleted anything.
    let changes: WorkSignal

    /// The events of a device's receipts (its trace) and of a person's responses, as `feedback.event` has them.
    static let traceEvents = ["delivered", "displayed", "outcome"]
    static let responseEvents = ["opened", "dismissed", "action"]

    func run() async {
        while !Task.isCancelled {
            let now = clock.currentDate
            await prune(now: now)
            try? await clock.sleep(until: now.adding(settings.interval))
        }
    }

    /// What one pass deleted, by kind.
    struct Pass: Sendable, Equatable {
        var deliveries = 0
        var traces = 0
        var responses = 0
        var notifications = 0
        var audit = 0
        /// Entries of the frequency caps' send log older than the longest window.
        var capLog = 0
    }

    /// One pass over every app: what is past its retention at `now` is deleted.
    @discardableResult
    func prune(now: Date) async -> Pass {
        var pass = Pass()
        do {
            for app in try await store.apps() {
                guard !Task.isCancelled else { break }
                try await prune(app, now: now, into: &pass)
            }
            let auditBefore = now.addingTimeInterval(-Double(settings.auditDays) * 86_400)
            pass.audit = try await pruneInBatches { limit throws(ProviderError) in
                try await store.pruneAudit(before: auditBefore, limit: limit)
            }
            let capLogBefore = now.addingTimeInterval(-TimeInterval(FrequencyCap.maxWindow))
            pass.capLog = try await pruneInBatches { limit throws(ProviderError) in
                try await store.pruneCapLog(before: capLogBefore, limit: limit)
            }
            if !Task.isCancelled { metrics.prunerPassed(at: clock.currentDate) }
        } catch {
            failures.report(.prune, "cannot prune records past their retention; trying again next pass", error: error)
        }
        for (kind, count) in [
            ("deliveries", pass.deliveries), ("traces", pass.traces), ("responses", pass.responses),
            ("notifications", pass.notifications), ("audit", pass.audit), ("capLog", pass.capLog),
        ] where count > 0 {
            metrics.pruned(kind, count: count)
        }
        if pass != Pass() {
            changes.notify()
            failures.logger.info(
                "pruned records past their retention",
                metadata: [
                    "deliveries": "\(pass.deliveries)", "traces": "\(pass.traces)",
                    "responses": "\(pass.responses)", "notifications": "\(pass.notifications)",
                    "audit": "\(pass.audit)", "capLog": "\(pass.capLog)",
                ])
        }
        return pass
    }

    /// Calls `delete` with the batch size until it deletes less (a pause between two); what it deleted in all.
    private func pruneInBatches(_ delete: (Int) async throws(ProviderError) -> Int) async throws(ProviderError) -> Int {
        var total = 0
        while !Task.isCancelled {
            let deleted = try await delete(settings.batch)
            total += deleted
            guard deleted == settings.batch else { break }
            try? await clock.sleep(for: settings.pause)
        }
        return total
    }

    private func prune(_ app: StoredApp, now: Date, into pass: inout Pass) async throws(ProviderError) {
        let retention = app.app.retention.filled(from: settings.defaults)
        let appID = app.app.id
        if let days = retention.deliveries {
            let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
            while !Task.isCancelled {
                let page = try await store.unprunedNotifications(appID: appID, createdBefore: cutoff, limit: 100)
                for id in page {
                    pass.deliveries += try await repeatBatches { () throws(ProviderError) in
                        try await store.pruneDeliveries(
                            notificationID: id, occurrenceBefore: nil, limit: settings.batch, at: now)
                    }
                }
                if page.count < 100 { break }
            }
            // A daily notification's occurrences are pruned by their local day.
            let day = Self.day(of: cutoff.addingTimeInterval(-86_400))
            for notification in try await store.dailyNotifications() where notification.appID == appID {
                pass.deliveries += try await repeatBatches { () throws(ProviderError) in
                    try await store.pruneDeliveries(
                        notificationID: notification.id, occurrenceBefore: day, limit: settings.batch, at: now)
                }
            }
            let historyCutoff = now.addingTimeInterval(-Double(max(settings.historyDays, days)) * 86_400)
            pass.notifications += try await repeatBatches { () throws(ProviderError) in
                try await store.deleteNotifications(appID: appID, createdBefore: historyCutoff, limit: settings.batch)
            }
        }
        for (days, events, kind) in [
            (retention.traces, Self.traceEvents, \Pass.traces), (retention.responses, Self.responseEvents, \.responses),
        ] {
            guard let days else { continue }
            let before = now.addingTimeInterval(-Double(days) * 86_400)
            pass[keyPath: kind] += try await repeatBatches { () throws(ProviderError) in
                try await store.pruneReports(appID: appID, events: events, before: before, limit: settings.batch)
            }
        }
    }

    /// Runs `batch` until it deletes less than a full batch, pausing between two; the total deleted.
    private func repeatBatches(_ batch: () async throws(ProviderError) -> Int) async throws(ProviderError) -> Int {
        var total = 0
        while !Task.isCancelled {
            let count = try await batch()
            total += count
            guard count >= settings.batch else { break }
            try? await clock.sleep(for: settings.pause)
        }
        return total
    }

    /// `YYYY-MM-DD` of `date` in UTC, as daily occurrences are named (each device's local day; a day earlier than
    /// the cutoff covers every time zone).
    static func day(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
