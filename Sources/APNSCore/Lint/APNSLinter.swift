public import Foundation

/// Checks a notification as APNs and iOS would: every problem APNs rejects becomes an error with the reason APNs
/// gives, every problem iOS silently mishandles a warning.
///
/// ```swift
/// let request = APNSLinter.Request(body: Data(#"{"aps":{"badge":"1"}}"#.utf8))
/// let report = APNSLinter.lint(request)
/// report.warnings.first?.rule  // "badge-not-a-number"
/// ```
public enum APNSLinter {
    /// What to check: the body exactly as it will be sent and the header values as given.
    public struct Request: Sendable {
        /// The exact bytes of the request body.
        public var body: Data
        /// The `apns-*` header values as given; without `pushType` the push type is inferred from the payload, as iOS
        /// does.
        public var headers: APNSHeaderValues
        /// The moment to judge expiration dates against.
        public var now: Date

        /// A request of `body` with the header values as given.
        public init(body: Data, headers: APNSHeaderValues, now: Date = Date()) {
            self.body = body
            self.headers = headers
            self.now = now
        }

        /// A request of `body` with each header value as given (`nil`: not given).
        public init(
            body: Data, pushType: String? = nil, priority: String? = nil, topic: String? = nil,
            expiration: String? = nil, collapseID: String? = nil, apnsID: String? = nil, now: Date = Date()
        ) {
            self.init(
                body: body,
                headers: APNSHeaderValues(
                    pushType: pushType, priority: priority, topic: topic, expiration: expiration,
                    collapseID: collapseID, apnsID: apnsID),
                now: now)
        }
    }

    /// What the linter found, and what it assumed.
    public struct Report: Sendable, Hashable {
        /// Every problem, errors first, each group in the order found.
        public var diagnostics: [APNSDiagnostic]
        /// The push type the checks used: the one given, or the one inferred from the payload.
        public var pushType: APNSPushType
        /// Whether ``pushType`` was inferred rather than given.
        public var pushTypeInferred: Bool
        /// The size of the body in bytes.
        public var size: Int

        /// The problems APNs would reject the request for.
        public var errors: [APNSDiagnostic] { diagnostics.filter { $0.severity == .error } }
        /// The problems iOS would mishandle.
        public var warnings: [APNSDiagnostic] { diagnostics.filter { $0.severity == .warning } }
        /// Whether APNs would accept the request.
        public var isAccepted: Bool { errors.isEmpty }
    }

    /// Checks one request.
    public static func lint(_ request: Request) -> Report {
        var found: [APNSDiagnostic] = []
        let headers = HeaderCheck.run(request, into: &found)
        let payload = parsePayload(request.body, into: &found)
        let pushType = headers.pushType ?? payload.map(inferPushType) ?? .alert
        let context = Context(
            pushType: pushType,
            pushTypeGiven: headers.pushType != nil,
            priority: headers.priority,
            topic: request.headers.topic
        )
        HeaderCheck.checkAgainstPushType(context, expiration: headers.expiration, now: request.now, into: &found)
        if payload != nil, request.body.count > pushType.maximumPayloadSize {
            found.append(
                .error(
                    .payloadTooLarge,
                    rule: "payload-too-large",
                    "the payload is \(request.body.count) bytes; APNs accepts at most "
                        + "\(pushType.maximumPayloadSize) for push type \(pushType)"
                )
            )
        }
        if let payload { PayloadCheck.run(payload, context, into: &found) }
        let ordered = found.filter { $0.severity == .error } + found.filter { $0.severity == .warning }
        return Report(
            diagnostics: ordered,
            pushType: pushType,
            pushTypeInferred: headers.pushType == nil,
            size: request.body.count
        )
    }

    /// The push type iOS assumes for a request without `apns-push-type`: background for a payload that only has
    /// `content-available`, alert otherwise.
    public static func inferPushType(_ payload: APNSPayload) -> APNSPushType {
        let aps = payload.aps
        let visible = ["alert", "badge", "sound"].contains { aps[$0] != nil }
        return aps["content-available"] != nil && !visible ? .background : .alert
    }

    /// What the payload checks need to know about the request.
    struct Context {
        var pushType: APNSPushType
        var pushTypeGiven: Bool
        var priority: APNSPriority?
        var topic: String?
        var effectivePriority: APNSPriority { priority ?? .immediate }
    }

    /// The body as a payload, or `nil` with an error when APNs would not take it as one.
    ///
    /// APNs documents `PayloadEmpty` for an empty body and no reason for a body that is not a JSON object; Herald
    /// answers both with `PayloadEmpty` (APNs finds no payload it can use) and says which it was.
    private static func parsePayload(_ body: Data, into found: inout [APNSDiagnostic]) -> APNSPayload? {
        guard !body.isEmpty else {
            found.append(.error(.payloadEmpty, rule: "payload-empty", "the payload is empty; send a JSON object"))
            return nil
        }
        do {
            return try APNSPayload(data: body)
        } catch {
            found.append(.error(.payloadEmpty, rule: "payload-not-json-object", error.message))
            return nil
        }
    }
}
