public import Foundation

/// The option keys of ``UNNotificationAttachment/init(identifier:url:options:)``.
public let UNNotificationAttachmentOptionsTypeHintKey = "UNNotificationAttachmentOptionsTypeHintKey"
/// `true` hides the thumbnail.
public let UNNotificationAttachmentOptionsThumbnailHiddenKey = "UNNotificationAttachmentOptionsThumbnailHiddenKey"
/// A unit rectangle (a `CGRect` dictionary representation: `X`, `Y`, `Width`, `Height`) clipping the thumbnail.
public let UNNotificationAttachmentOptionsThumbnailClippingRectKey =
    "UNNotificationAttachmentOptionsThumbnailClippingRectKey"
/// The frame number (animated image) or seconds (movie) the thumbnail is taken from.
public let UNNotificationAttachmentOptionsThumbnailTimeKey = "UNNotificationAttachmentOptionsThumbnailTimeKey"

/// A file shown with a notification: an image (10 MB), audio (5 MB) or movie (50 MB), on local disk.
///
/// Creating one checks that the URL is a readable local file of a supported type within its size limit. When the
/// request is scheduled (or a service extension finishes), the system moves the file into the center's data store.
// Safety: immutable after creation.
open class UNNotificationAttachment: NSObject, NSCopying, @unchecked Sendable {
    /// The identifier; a unique one is made when an empty string is given.
    public let identifier: String
    /// Where the file is: first where it was given, then in the center's data store.
    public let url: URL
    /// The file's type identifier (UTI), for example `public.png`.
    public let type: String
    /// The options given.
    public let options: [AnyHashable: Any]
    /// The type's kind, for limits and display.
    public let kind: AttachmentKind

    init(identifier: String, url: URL, type: String, options: [AnyHashable: Any], kind: AttachmentKind) {
        self.identifier = identifier
        self.url = url
        self.type = type
        self.options = options
        self.kind = kind
        super.init()
    }

    /// An attachment for a local file.
    ///
    /// - Parameters:
    ///   - identifier: the attachment's identifier; `""` makes a unique one.
    ///   - url: a `file:` URL of a readable file.
    ///   - options: any of the four `UNNotificationAttachmentOptions…Key`s.
    /// - Throws: ``UNError`` `attachmentInvalidURL` (not a readable local file), `attachmentUnrecognizedType` (type
    ///   unknown or unsupported), `attachmentInvalidFileSize` (over the type's limit), `attachmentCorrupt` (an empty
    ///   file).
    public convenience init(identifier: String, url: URL, options: [AnyHashable: Any]? = nil) throws {
        let options = options ?? [:]
        guard url.isFileURL else {
            throw UNError(.attachmentInvalidURL, "\(url) is not a file URL; download the file first")
        }
        let size = try Self.readableSize(of: url)
        let typeHint = options[UNNotificationAttachmentOptionsTypeHintKey] as? String
        guard let (type, kind) = AttachmentKind.classify(typeHint: typeHint, pathExtension: url.pathExtension) else {
            throw UNError(
                .attachmentUnrecognizedType,
                "\(url.lastPathComponent) is not a supported image, audio or movie type; give a known extension or "
                    + "a type hint"
            )
        }
        guard size > 0 else { throw UNError(.attachmentCorrupt, "\(url.lastPathComponent) is empty") }
        guard size <= kind.maximumSize else {
            throw UNError(
                .attachmentInvalidFileSize,
                "\(url.lastPathComponent) is \(size) bytes; \(kind) attachments are at most \(kind.maximumSize)"
            )
        }
        self.init(
            identifier: identifier.isEmpty ? UUID().uuidString : identifier,
            url: url,
            type: type,
            options: options,
            kind: kind
        )
    }

    /// The same attachment at another location (after a move into the data store).
    func moved(to newURL: URL) -> UNNotificationAttachment {
        UNNotificationAttachment(identifier: identifier, url: newURL, type: type, options: options, kind: kind)
    }

    /// Whether the thumbnail is hidden.
    public var thumbnailHidden: Bool { (options[UNNotificationAttachmentOptionsThumbnailHiddenKey] as? Bool) ?? false }

    /// The unit rectangle of the image used as thumbnail, `(x, y, width, height)`, when one was given.
    public var thumbnailClippingRect: (x: Double, y: Double, width: Double, height: Double)? {
        let option = options[UNNotificationAttachmentOptionsThumbnailClippingRectKey]
        if let rect = option as? CGRect {
            return (Double(rect.origin.x), Double(rect.origin.y), Double(rect.size.width), Double(rect.size.height))
        }
        guard let rect = option as? [String: Any] ?? (option as? NSDictionary).flatMap({ $0 as? [String: Any] }) else {
            return nil
        }
        func value(_ key: String) -> Double? { (rect[key] as? NSNumber)?.doubleValue ?? rect[key] as? Double }
        guard let x = value("X"), let y = value("Y"), let width = value("Width"), let height = value("Height") else {
            return nil
        }
        return (x, y, width, height)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAttachment else { return false }
        return identifier == other.identifier && url == other.url && type == other.type
    }

    open override var hash: Int { identifier.hashValue }

    private static func readableSize(of url: URL) throws -> Int {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: url.path)
        else {
            throw UNError(.attachmentInvalidURL, "\(url.path) is not a readable file")
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }
}
