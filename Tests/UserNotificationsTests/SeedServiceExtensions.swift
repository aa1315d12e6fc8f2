import Foundation
import UserNotifications

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Seed 000's RITL demo extension: rewrites the body and hands the content back at once.
final class RITLNotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        bestAttemptContent?.body = "我是在Service里面修改后的title"
        if let bestAttemptContent { contentHandler(bestAttemptContent) }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
    }
}

/// Seed 002's extension: marks the title, downloads an image with a data task, saves it and attaches it.
// Safety: as an iOS extension in Swift 6 mode declares it: its state is touched by didReceive, then by one callback.
final class ImageDownloadService: UNNotificationServiceExtension, @unchecked Sendable {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?
    let imageURL: URL
    let downloadFolder: URL

    init(imageURL: URL, downloadFolder: URL) {
        self.imageURL = imageURL
        self.downloadFolder = downloadFolder
        super.init()
    }

    override func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        bestAttemptContent?.title = "\(bestAttemptContent?.title ?? "") [modified]"
        let task = URLSession(configuration: .default).dataTask(with: imageURL) { data, _, error in
            if error == nil, let data {
                let path = self.downloadFolder.appendingPathComponent("image.jpg")
                try? data.write(to: path, options: .atomic)
                if let attachment = try? UNNotificationAttachment(identifier: "remote-atta1", url: path, options: nil) {
                    self.bestAttemptContent?.attachments = [attachment]
                }
            }
            self.contentHandler?(self.bestAttemptContent!)
        }
        task.resume()
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
    }
}

/// Seed 003's extension: picks `imageUrl` or `gifUrl` from userInfo, downloads it with a download task, renames it
/// with its type and attaches it; hands back the best attempt when there is nothing to download.
// Safety: as an iOS extension in Swift 6 mode declares it: its state is touched by didReceive, then by one callback.
final class MediaDownloadService: UNNotificationServiceExtension, @unchecked Sendable {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        bestAttemptContent?.title = ""
        let userInfo = request.content.userInfo
        var url: URL?
        var typeString = ""
        if let imageUrl = userInfo["imageUrl"] as? String, !imageUrl.isEmpty {
            url = URL(string: imageUrl)
            typeString = "jpg"
        }
        if let gifUrl = userInfo["gifUrl"] as? String, !gifUrl.isEmpty {
            url = URL(string: gifUrl)
            typeString = "gif"
        }
        guard let url else {
            contentHandler(bestAttemptContent!)
            return
        }
        let type = typeString
        let task = URLSession(configuration: .default).downloadTask(with: URLRequest(url: url, timeoutInterval: 5)) {
            location, _, error in
            if error == nil, let location {
                let pathURL = URL(fileURLWithPath: location.path + ".\(type)")
                try? FileManager.default.moveItem(at: location, to: pathURL)
                if let attachment = try? UNNotificationAttachment(identifier: "attachment", url: pathURL, options: nil)
                {
                    self.bestAttemptContent?.attachments = [attachment]
                }
                self.bestAttemptContent?.launchImageName = ""
                self.bestAttemptContent?.sound = UNNotificationSound.default
            }
            self.contentHandler?(self.bestAttemptContent!)
        }
        task.resume()
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
    }
}

/// An extension that keeps a best attempt but never finishes on its own (a download that hangs).
final class StallingService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?
    let offersBestAttempt: Bool

    init(offersBestAttempt: Bool) {
        self.offersBestAttempt = offersBestAttempt
        super.init()
    }

    override func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        bestAttemptContent?.body = "best attempt"
    }

    override func serviceExtensionTimeWillExpire() {
        if offersBestAttempt, let contentHandler, let bestAttemptContent { contentHandler(bestAttemptContent) }
    }
}

/// An extension that calls its handler twice; only the first call counts.
final class TwiceService: UNNotificationServiceExtension {
    override func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        let first = request.content.mutableCopy() as! UNMutableNotificationContent
        first.body = "first"
        contentHandler(first)
        let second = request.content.mutableCopy() as! UNMutableNotificationContent
        second.body = "second"
        contentHandler(second)
    }
}
