import Foundation
import HeraldSupport
import Logging
import ProviderStorage

/// An app's life after it is made: changed (an app paused for its credentials goes on when they change), paused,
/// resumed, deleted.
extension AppOperations {
    /// Pauses an app's sending: its queued deliveries wait, spending no attempt, until it is resumed.
    func pause(_ app: StoredApp) async throws(ProviderError) -> Int {
        guard try await store.setPaused(appID: app.app.id, at: now()) else {
            throw .notFound("no app with id \(app.app.id)")
        }
        publishableKeys.forget(appID: app.app.id)
        engine.stopSending(appID: app.app.id)
        let parked = try await store.park(
            appID: app.app.id, reason: DeliveryVerdict.pausedReason, until: DeliveryEngine.pausedUntil)
        logger.notice("app paused", metadata: ["app": "\(app.app.id)", "waiting": "\(parked)"])
        changes.notify()
        return parked
    }

    /// Resumes a paused app, whether an operator or APNs' refusal of its credentials paused it: what waited is due
    /// now.
    func resume(_ app: StoredApp) async throws(ProviderError) -> Int {
        guard try await store.setPaused(appID: app.app.id, at: nil) else {
            throw .notFound("no app with id \(app.app.id)")
        }
        publishableKeys.forget(appID: app.app.id)
        engine.resumeSending(appID: app.app.id)
        var woken = 0
        for reason in CredentialPause.everyParkingReason {
            woken += try await store.wakeWaiting(appID: app.app.id, reason: reason, now: now())
        }
        logger.notice("app resumed", metadata: ["app": "\(app.app.id)", "due": "\(woken)"])
        engine.notify()
        return woken
    }

    /// Changes app `app` by `input` (`PATCH /v1/apps/{id}`) and stores it. An app APNs' refusal of its credentials
    /// paused goes on when the change touches what APNs judged (its credentials, topic, environment or endpoint).
    func update(_ app: StoredApp, with input: AppInput, byAdmin: Bool) async throws(ProviderError) -> StoredApp {
        var updated = app
        try apply(input, to: &updated, creating: false, byAdmin: byAdmin)
        updated.app.updatedAt = now()
        try await store.updateApp(updated)
        publishableKeys.forget(appID: app.app.id)
        let judged =
            [input.authentication != nil, input.bundleID != nil, input.environment != nil]
            + [input.endpoint != nil, input.caPEM != nil]
        if let reason = app.app.pauseReason, judged.contains(true) {
            logger.notice(
                "the app's credentials changed; its sends paused for APNs' refusal go on",
                metadata: ["app": "\(app.app.id)", "reason": "\(reason)"])
            _ = try await resume(updated)
            updated.app.pausedAt = nil
            updated.app.pauseReason = nil
        }
        return updated
    }

    /// Deletes an app and everything of it; its deliveries in flight finish unrecorded.
    func deleteApp(_ app: StoredApp) async throws(ProviderError) -> AppDeletion {
        guard let deletion = try await store.deleteApp(id: app.app.id) else {
            throw .notFound("no app with id \(app.app.id)")
        }
        publishableKeys.forget(appID: app.app.id)
        logger.notice(
            "app deleted",
            metadata: [
                "app": "\(app.app.id)", "devices": "\(deletion.devices)",
                "notifications": "\(deletion.notifications)", "deliveries": "\(deletion.deliveries)",
            ])
        changes.notify()
        return deletion
    }
}
