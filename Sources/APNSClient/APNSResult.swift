public import APNSCore
public import Foundation

/// How one notification ended: APNs accepted it, or it was rejected. Every notification a client is given ends in
/// exactly one result.
public enum APNSResult: Hashable, Sendable {
    /// APNs answered `200`.
    case accepted(APNSAcceptance)
    /// APNs answered with an error, or the client gave up (``APNSRejection/status`` is `nil` then).
    case rejected(APNSRejection)

    /// Whether APNs accepted the notification.
    public var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }
}

/// APNs' answer to an accepted notification.
public struct APNSAcceptance: Hashable, Sendable {
    /// The `apns-id` APNs answered with: the request's, or one it generated.
    public var apnsID: String
    /// `apns-unique-id`, sent by the development environment only, for Apple's delivery log.
    public var uniqueID: String?
    /// A channel request's status (201 for a creation, 204 for a deletion, 200 otherwise); 200 for a push.
    public var status = 200
    /// A new channel's `apns-channel-id`.
    public var channelID: String?
    /// A channel request's answer body (a channel's configuration, the list of channels).
    public var body: [UInt8]?

    public init(apnsID: String, uniqueID: String? = nil) {
        self.apnsID = apnsID
        self.uniqueID = uniqueID
    }
}

/// Why a notification was not accepted.
///
/// When APNs answered, ``status`` and ``reason`` are what it sent. When it never answered (the deadline passed, the
/// connection could not be made, retries ran out on a lost connection), ``status`` is `nil` and ``reason`` is one of
/// the client's own: ``APNSReason/deadlineExceeded``, ``APNSReason/connectionFailed``, ``APNSReason/streamReset``,
/// ``APNSReason/invalidResponse`` or ``APNSReason/cancelled``.
public struct APNSRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status APNs answered with, or `nil` when it never answered.
    public var status: Int?
    /// The `reason` from APNs' JSON body, or the client's reason when APNs never answered.
    public var reason: APNSReason
    /// For `410`: when the token stopped being valid for the topic.
    public var timestamp: Date?
    /// The `apns-id` of the answer, when APNs answered.
    public var apnsID: String?
    /// What happened, for a person.
    public var message: String

    public init(status: Int?, reason: APNSReason, timestamp: Date? = nil, apnsID: String? = nil, message: String) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
        self.message = message
    }

    public var description: String {
        let status = status.map(String.init) ?? "no answer"
        return "\(status) \(reason): \(message)"
    }
}

extension APNSReason {
    /// Client side: the notification's deadline passed before APNs answered.
    public static let deadlineExceeded = APNSReason(rawValue: "DeadlineExceeded")
    /// Client side: no connection to APNs could be made (after every allowed retry).
    public static let connectionFailed = APNSReason(rawValue: "ConnectionFailed")
    /// Client side: the server reset the stream without answering, or the connection was lost and retries ran out.
    public static let streamReset = APNSReason(rawValue: "StreamReset")
    /// Client side: the server answered something that is not an APNs response.
    public static let invalidResponse = APNSReason(rawValue: "InvalidResponse")
    /// Client side: the task sending it was cancelled before APNs answered. The message says whether it had been
    /// written to APNs (it may have been delivered) or never left the client.
    public static let cancelled = APNSReason(rawValue: "Cancelled")
}

/// A finished notification, as reported by ``APNSPushClient/send(contentsOf:onResult:)``.
public struct APNSSendOutcome: Sendable {
    /// The notification as given.
    public var notification: APNSNotification
    /// How it ended.
    public var result: APNSResult
    /// How many times the client tried to send it (1 when it was never retried).
    public var attempts: Int
    /// Its position in the sequence handed to ``APNSPushClient/send(contentsOf:onResult:)``, from 0: what leads an
    /// outcome back to the caller's own record of the notification, whatever its headers say.
    public var index: Int

    /// Every stored property, as given (what a fake sender in a test reports).
    package init(notification: APNSNotification, result: APNSResult, attempts: Int, index: Int) {
        self.notification = notification
        self.result = result
        self.attempts = attempts
        self.index = index
    }
}
