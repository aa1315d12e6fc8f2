public import Foundation

/// The error domain of UserNotifications errors.
public let UNErrorDomain = "UNErrorDomain"

/// A UserNotifications error, with Apple's codes; match with `catch UNError.attachmentInvalidURL` or
/// `error.code == .attachmentInvalidURL`.
public struct UNError: Error, CustomNSError, Hashable, Sendable, CustomStringConvertible {
    /// Apple's error codes, with their raw values.
    public enum Code: Int, Sendable, Hashable {
        case notificationsNotAllowed = 1
        case attachmentInvalidURL = 100
        case attachmentUnrecognizedType = 101
        case attachmentInvalidFileSize = 102
        case attachmentNotInDataStore = 103
        case attachmentMoveIntoDataStoreFailed = 104
        case attachmentCorrupt = 105
        case notificationInvalidNoDate = 1400
        case notificationInvalidNoContent = 1401
        case contentProvidingObjectNotAllowed = 1500
        case contentProvidingInvalid = 1501
        case badgeInputInvalid = 1600
    }

    /// The code.
    public let code: Code
    /// What went wrong, for a person.
    public let message: String

    /// An error with `code` and a message.
    public init(_ code: Code, _ message: String = "") {
        self.code = code
        self.message = message
    }

    /// Errors are equal when their codes are, as `NSError`s of one domain compare by code.
    public static func == (lhs: UNError, rhs: UNError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static var errorDomain: String { UNErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var description: String { "UNError \(code) (\(code.rawValue)): \(message)" }

    public static var notificationsNotAllowed: Code { .notificationsNotAllowed }
    public static var attachmentInvalidURL: Code { .attachmentInvalidURL }
    public static var attachmentUnrecognizedType: Code { .attachmentUnrecognizedType }
    public static var attachmentInvalidFileSize: Code { .attachmentInvalidFileSize }
    public static var attachmentNotInDataStore: Code { .attachmentNotInDataStore }
    public static var attachmentMoveIntoDataStoreFailed: Code { .attachmentMoveIntoDataStoreFailed }
    public static var attachmentCorrupt: Code { .attachmentCorrupt }
    public static var notificationInvalidNoDate: Code { .notificationInvalidNoDate }
    public static var notificationInvalidNoContent: Code { .notificationInvalidNoContent }
    public static var badgeInputInvalid: Code { .badgeInputInvalid }
}

/// Lets `catch UNError.attachmentInvalidURL` match a ``UNError`` with that code.
public func ~= (code: UNError.Code, error: any Error) -> Bool {
    (error as? UNError)?.code == code
}
