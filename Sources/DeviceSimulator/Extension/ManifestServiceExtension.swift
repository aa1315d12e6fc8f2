import APNSCore
package import Crypto
package import Foundation
import HeraldKit
package import HeraldSupport
import Synchronization
package import UserNotifications

/// The service extension a manifest describes: its steps run in order on a copy of the content. When every step
/// succeeds the result is handed over; when one fails (a download of the wrong type, a key that does not match, a
/// `fail` step) the reason is logged and the original content is shown, as iOS shows it when an extension crashes;
/// at the time limit the content of the steps done so far is the best attempt.
// Safety: the published best attempt is immutable once stored, and stored and read only under `progress`'s lock;
// each step works on its own copy.
package final class ManifestServiceExtension: UNNotificationServiceExtension, @unchecked Sendable {
    private let steps: [ServiceExtensionStep]
    private let downloader: AttachmentDownloader
    private let privateKey: Curve25519.KeyAgreement.PrivateKey?
    private let log: @Sendable (String) -> Void
    private let progress = Mutex(Progress())

    private struct Progress {
        var bestAttempt: UNNotificationContent?
        var contentHandler: ContentHandler?
        var work: Task<Void, Never>?
    }

    /// An extension running `steps`.
    ///
    /// - Parameters:
    ///   - steps: the manifest's steps.
    ///   - downloadFolder: where downloads are written before they become attachments.
    ///   - downloadPolicy: which addresses downloads may reach.
    ///   - privateKey: the app's end-to-end key, for `decrypt` steps.
    ///   - log: receives the reason whenever a step fails or the time limit passes.
    package init(
        steps: [ServiceExtensionStep],
        downloadFolder: URL,
        downloadPolicy: OutboundPolicy,
        privateKey: Curve25519.KeyAgreement.PrivateKey?,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.steps = steps
        self.downloader = AttachmentDownloader(folder: downloadFolder, policy: downloadPolicy)
        self.privateKey = privateKey
        self.log = log
        super.init()
    }

    package override func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        let handler = ContentHandler(contentHandler)
        let original = request.content
        progress.withLock {
            $0.bestAttempt = original
            $0.contentHandler = handler
        }
        let work = Task {
            do throws(ServiceExtensionStepError) {
                var current = original
                for step in steps {
                    current = try await apply(step, to: current)
                    if Task.isCancelled { return }
                    progress.withLock { [current] in $0.bestAttempt = current }
                }
                handler.call(current)
            } catch {
                log("the service extension failed, the original content is shown: \(error.message)")
                handler.call(original)
            }
        }
        progress.withLock { $0.work = work }
    }

    package override func serviceExtensionTimeWillExpire() {
        let (best, handler, work) = progress.withLock { ($0.bestAttempt, $0.contentHandler, $0.work) }
        work?.cancel()
        log("the service extension reached its time limit; its best attempt is shown")
        if let best { handler?.call(best) }
    }

    private func apply(_ step: ServiceExtensionStep, to content: UNNotificationContent)
        async
        throws(ServiceExtensionStepError) -> UNNotificationContent
    {
        let next = content.mutableCopy() as! UNMutableNotificationContent
        switch step {
        case .rewrite(let title, let subtitle, let body):
            if let title { next.title = title }
            if let subtitle { next.subtitle = subtitle }
            if let body { next.body = body }
        case .attachFrom(let key):
            guard let text = content.userInfo[key] as? String else {
                // Like an extension that checks for its media URL first: nothing to download, the content goes on.
                log("attachFrom: the payload has no \"\(key)\" media URL; nothing to attach")
                return next
            }
            guard let url = URL(string: text) else {
                throw ServiceExtensionStepError("attachFrom: \"\(key)\" is not a URL: \(text)")
            }
            do throws(ServiceExtensionStepError) {
                next.attachments += [try await downloader.attachment(from: url, identifier: key)]
            } catch {
                throw ServiceExtensionStepError("attachFrom \"\(key)\": \(error.message)")
            }
        case .decrypt(let key):
            try decrypt(key, into: next)
        case .delay(let seconds):
            try? await Task.sleep(for: .seconds(seconds))
        case .fail(let reason):
            throw ServiceExtensionStepError("fail: \(reason)")
        }
        return next
    }

    private func decrypt(_ key: String, into content: UNMutableNotificationContent) throws(ServiceExtensionStepError) {
        guard let privateKey else {
            throw ServiceExtensionStepError("decrypt: this app has no end-to-end key")
        }
        do throws(HeraldError) {
            try Herald.openEncryptedField(key, in: content, with: privateKey)
        } catch {
            if case .endToEnd(let message) = error { throw ServiceExtensionStepError("decrypt: \(message)") }
            throw ServiceExtensionStepError("decrypt: \(error)")
        }
    }
}

/// The system's content handler, called at most once.
// Safety: `handler` is read and cleared only under `lock`, so it is taken out exactly once and then called.
private final class ContentHandler: @unchecked Sendable {
    private let lock = NSLock()
    private var handler: ((UNNotificationContent) -> Void)?

    init(_ handler: @escaping (UNNotificationContent) -> Void) {
        self.handler = handler
    }

    func call(_ content: UNNotificationContent) {
        let handler = lock.withLock {
            defer { self.handler = nil }
            return self.handler
        }
        handler?(content)
    }
}
