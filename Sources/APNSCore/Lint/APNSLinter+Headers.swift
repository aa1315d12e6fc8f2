import Foundation
import HeraldJSON

extension APNSLinter {
    /// The header rules: each header on its own, then against the push type.
    enum HeaderCheck {
        struct Parsed {
            var pushType: APNSPushType?
            var priority: APNSPriority?
            var expiration: APNSExpiration?
        }

        static func run(_ request: Request, into found: inout [APNSDiagnostic]) -> Parsed {
            var parsed = Parsed()
            parsed.pushType = check(
                request.headers.pushType, APNSRequestHeaders.Name.pushType, into: &found,
                parse: APNSRequestHeaders.parsePushType)
            parsed.priority = check(
                request.headers.priority, APNSRequestHeaders.Name.priority, into: &found,
                parse: APNSRequestHeaders.parsePriority)
            parsed.expiration = check(
                request.headers.expiration, APNSRequestHeaders.Name.expiration, into: &found,
                parse: APNSRequestHeaders.parseExpiration)
            _ = check(
                request.headers.topic, APNSRequestHeaders.Name.topic, into: &found, parse: APNSRequestHeaders.parseTopic
            )
            _ = check(
                request.headers.collapseID, APNSRequestHeaders.Name.collapseID, into: &found,
                parse: APNSRequestHeaders.parseCollapseID)
            _ = check(
                request.headers.apnsID, APNSRequestHeaders.Name.apnsID, into: &found,
                parse: APNSRequestHeaders.parseAPNSID)
            return parsed
        }

        private static func check<Value>(
            _ value: String?,
            _ header: String,
            into found: inout [APNSDiagnostic],
            parse: (String) throws(APNSRequestRejection) -> Value
        ) -> Value? {
            guard let value else { return nil }
            do {
                return try parse(value)
            } catch {
                found.append(.error(error.reason, rule: "header-\(header)", at: header, error.message))
                return nil
            }
        }

        static func checkAgainstPushType(
            _ context: Context,
            expiration: APNSExpiration?,
            now: Date,
            into found: inout [APNSDiagnostic]
        ) {
            checkTopic(context, into: &found)
            checkPriority(context, into: &found)
            if case .at(let date)? = expiration {
                checkExpiration(date, now: now, into: &found)
            }
        }

        private static func checkTopic(_ context: Context, into found: inout [APNSDiagnostic]) {
            let header = APNSRequestHeaders.Name.topic
            guard let topic = context.topic, APNSTopic.problem(with: topic) == nil,
                let suffix = context.pushType.topicSuffix
            else { return }
            if !suffix.isEmpty, context.pushType.bundleID(fromTopic: topic) == nil {
                found.append(
                    .error(
                        .deviceTokenNotForTopic,
                        rule: "topic-missing-push-type-suffix",
                        at: header,
                        "push type \(context.pushType) goes to the topic '<bundle ID>\(suffix)'; '\(topic)' lacks "
                            + "the suffix, so no device token matches it"
                    )
                )
            } else if suffix.isEmpty, let other = APNSTopic.pushTypeSuffixed(in: topic) {
                found.append(
                    .warning(
                        rule: "topic-has-other-push-type-suffix",
                        at: header,
                        "'\(topic)' ends with the \(other) suffix '\(other.topicSuffix ?? "")'; push type "
                            + "\(context.pushType) goes to the bare bundle ID"
                    )
                )
            }
        }

        private static func checkPriority(_ context: Context, into found: inout [APNSDiagnostic]) {
            let header = APNSRequestHeaders.Name.priority
            if context.pushType == .background, context.effectivePriority == .immediate {
                let given = context.priority == nil ? "no apns-priority (so 10)" : "apns-priority 10"
                found.append(
                    .warning(
                        rule: "background-priority-10",
                        at: header,
                        "a background push is sent with \(given); Apple documents priority 10 for background "
                            + "pushes as an error and iOS may drop them: send apns-priority 5"
                    )
                )
            }
            if context.pushType == .liveactivity, context.priority == .prioritizePowerConsumption {
                found.append(
                    .warning(
                        rule: "liveactivity-priority-1",
                        at: header,
                        "Live Activity updates use apns-priority 5 or 10; 1 may never wake the device"
                    )
                )
            }
        }

        private static func checkExpiration(_ date: Date, now: Date, into found: inout [APNSDiagnostic]) {
            let header = APNSRequestHeaders.Name.expiration
            let seconds = date.timeIntervalSince1970.clampedInt64 ?? 0
            if seconds < 1_000_000_000 {
                found.append(
                    .warning(
                        rule: "expiration-looks-like-duration",
                        at: header,
                        "apns-expiration \(seconds) is a moment in \(1970 + seconds / 31_557_600), not a duration; "
                            + "it has passed, so APNs will not store the notification. Send now + \(seconds) "
                            + "(\((now.timeIntervalSince1970.clampedInt64 ?? 0) + seconds))"
                    )
                )
            } else if date < now {
                found.append(
                    .warning(
                        rule: "expiration-in-past",
                        at: header,
                        "apns-expiration \(seconds) has already passed; APNs will try once and never store it"
                    )
                )
            }
        }
    }
}
