import Foundation
public import UserNotifications

extension Herald {
    /// The payload key the provider puts each push's `apns-id` in: iOS hands an app neither the `apns-id` header nor
    /// (when the push has a collapse ID) an identifier derived from it.
    public static let receiptIDKey = "herald-id"

    /// The push's `apns-id`, when it came through a Herald provider.
    public static func apnsID(of content: UNNotificationContent) -> String? {
        content.userInfo[receiptIDKey] as? String
    }

    /// In the service extension's `didReceive(_:withContentHandler:)`: the push reached the device.
    public func didReceive(_ request: UNNotificationRequest) {
        report(.delivered, for: request.content)
    }

    /// In the service extension, just before calling the content handler: what it hands the system is shown.
    public func willHand(_ content: UNNotificationContent, for request: UNNotificationRequest) {
        report(.displayed, for: request.content)
    }

    /// In `userNotificationCenter(_:willPresent:withCompletionHandler:)`: a push shown while the app is in the
    /// foreground (call it when the options you answer show it). A push with `mutable-content` went through the
    /// service extension, whose ``willHand(_:for:)`` reported it shown already: it is not reported again.
    public func willPresent(_ notification: UNNotification) {
        let content = notification.request.content
        guard !Self.wentThroughServiceExtension(content) else { return }
        report(.displayed, for: content)
    }

    /// Whether the push asked for the service extension (`aps.mutable-content` 1).
    static func wentThroughServiceExtension(_ content: UNNotificationContent) -> Bool {
        guard let aps = content.userInfo["aps"] as? [AnyHashable: Any] else { return false }
        switch aps["mutable-content"] {
        case let number as Int: return number == 1
        case let number as NSNumber: return number.intValue == 1
        default: return false
        }
    }

    /// In `userNotificationCenter(_:didReceive:withCompletionHandler:)`: the person opened it, dismissed it (a
    /// category with `customDismissAction`) or chose an action, with a text reply when the action asks for one.
    public func didReceive(_ response: UNNotificationResponse) {
        let content = response.notification.request.content
        let text = (response as? UNTextInputNotificationResponse)?.userText
        switch response.actionIdentifier {
        case UNNotificationDefaultActionIdentifier: report(.opened, for: content, text: text)
        case UNNotificationDismissActionIdentifier: report(.dismissed, for: content)
        case let action: report(.action, for: content, action: action, text: text)
        }
    }

    /// What became of a push when it was not simply shown: `extensionTimeout` from
    /// `serviceExtensionTimeWillExpire`, `extensionFailed`, `attachmentDropped`, ... (the provider's outcomes).
    public func reportOutcome(_ outcome: String, detail: String? = nil, for content: UNNotificationContent) {
        report(.outcome, for: content, outcome: outcome, detail: detail)
    }

    /// Queues one receipt and starts sending; returns at once (the file is written, the network is not waited for).
    /// A push that did not come through Herald (no `herald-id`) or a device never registered is not reported.
    public func report(_ receipt: Receipt) {
        do {
            try receipts.append(receipt)
            Task { await sender.drain() }
        } catch {
            problemLog.add(error)
            Task {
                await sender.keepUnsaved(receipt)
                await sender.drain()
            }
        }
    }

    /// Sends every queued receipt now (at launch, or when the app becomes active).
    ///
    /// - Returns: whether none is left waiting.
    @discardableResult
    public func sendReceipts() async -> Bool {
        await sender.drain()
    }

    /// The receipts not yet sent, the ones dropped because the queue was full, and the queue files that could
    /// not be read.
    public var receiptQueue: (waiting: Int, dropped: Int, corrupt: Int) {
        (receipts.names().count, receipts.counter("dropped"), receipts.counter("corrupt"))
    }

    private func report(
        _ event: Receipt.Event, for content: UNNotificationContent, action: String? = nil, text: String? = nil,
        outcome: String? = nil, detail: String? = nil
    ) {
        guard let apnsID = Self.apnsID(of: content) else { return }
        guard let token = registeredToken else {
            problemLog.add(.configuration("a \(event.rawValue) receipt needs the device's token: register it first"))
            return
        }
        report(
            Receipt(event, apnsID: apnsID, token: token, action: action, text: text, outcome: outcome, detail: detail))
    }
}
