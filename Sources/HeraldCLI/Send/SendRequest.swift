import APNSCore
import Foundation

/// The payload and headers `herald send` sends, checked with `herald payload lint`'s rules first.
struct SendRequest {
    /// The exact payload bytes.
    let body: Data
    /// The checked headers, with the push type inferred when none was given.
    let headers: APNSRequestHeaders
    /// What APNs accepts but iOS mishandles.
    let warnings: [String]

    /// Reads the payload (a file, standard input, or nothing when only quick flags are given), applies the quick
    /// flags, and checks the whole request.
    ///
    /// - Throws: ``UsageError`` for an unreadable file, a bad header value or a payload APNs would reject.
    static func make(
        payloadPath: String?,
        quick: QuickPayloadOptions,
        activity: LiveActivityOptions = LiveActivityOptions(),
        io: CommandIO,
        headers given: APNSHeaderValues
    ) throws(UsageError) -> SendRequest {
        var payload = APNSPayload()
        var targetBundleID: String?
        var name = "the payload"
        if let payloadPath {
            let source = try PayloadSource(path: payloadPath, io: io)
            name = source.name
            switch source.payload {
            case .success(let parsed): payload = parsed
            case .failure(let error): throw UsageError("\(source.name): \(error.message)")
            }
            targetBundleID = source.targetBundleID
        }
        payload = try activity.apply(to: quick.apply(to: payload))
        let body = payload.encoded()
        let topic = given.topic(defaultBundleID: targetBundleID)
        var checked = given
        checked.topic = topic
        let report = APNSLinter.lint(APNSLinter.Request(body: body, headers: checked))
        guard report.isAccepted else {
            let problems = report.errors.map { "  \($0)" }.joined(separator: "\n")
            throw UsageError("\(name) would be rejected by APNs; nothing was sent:\n\(problems)")
        }
        guard let topic else {
            throw UsageError("say which app the notification is for: --topic BUNDLE_ID")
        }
        var headers = APNSRequestHeaders(topic: topic)
        do {
            headers.pushType = try APNSRequestHeaders.parsePushType(given.pushType ?? report.pushType.rawValue)
            headers.priority = try given.priority.map(APNSRequestHeaders.parsePriority)
            headers.expiration = try given.expiration.map(APNSRequestHeaders.parseExpiration) ?? .storagePolicy
            headers.collapseID = try given.collapseID.map(APNSRequestHeaders.parseCollapseID)
            headers.apnsID = try given.apnsID.map(APNSRequestHeaders.parseAPNSID)
        } catch {
            throw UsageError(error.message)
        }
        return SendRequest(body: body, headers: headers, warnings: report.warnings.map(\.description))
    }
}
