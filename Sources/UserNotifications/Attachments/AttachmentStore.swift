import Foundation

/// The center's attachment data store: scheduled attachments are moved here, one folder per attachment, and removed
/// with their notifications.
struct AttachmentStore: Sendable {
    let root: URL

    /// The request with every attachment moved into the store (already stored ones stay).
    ///
    /// - Throws: ``UNError`` `attachmentMoveIntoDataStoreFailed` when a file cannot be moved.
    func movingAttachments(of request: UNNotificationRequest) throws -> UNNotificationRequest {
        guard !request.content.attachments.isEmpty else { return request }
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        content.attachments = try request.content.attachments.map(move)
        return UNNotificationRequest(identifier: request.identifier, content: content, trigger: request.trigger)
    }

    private func move(_ attachment: UNNotificationAttachment) throws -> UNNotificationAttachment {
        if attachment.url.path.hasPrefix(root.path + "/") { return attachment }
        let folder = root.appendingPathComponent(UUID().uuidString, isDirectory: true)
        let destination = folder.appendingPathComponent(attachment.url.lastPathComponent)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: attachment.url, to: destination)
        } catch {
            throw UNError(
                .attachmentMoveIntoDataStoreFailed,
                "\(attachment.url.lastPathComponent) could not be moved into the attachment store: \(error)"
            )
        }
        return attachment.moved(to: destination)
    }

    /// Deletes stored attachment files.
    func remove(_ attachments: [UNNotificationAttachment]) {
        for attachment in attachments where attachment.url.path.hasPrefix(root.path + "/") {
            try? FileManager.default.removeItem(at: attachment.url.deletingLastPathComponent())
        }
    }
}
