extension APNSLinter {
    /// The type and value rules of each `aps` key (Apple's "Generating a remote notification", tables 1 to 3).
    enum ApsKeyCheck {
        /// The `aps` keys people also write at the top level by mistake.
        static let commonKeys: Set<String> = [
            "alert", "badge", "sound", "category", "thread-id", "content-available", "mutable-content",
        ]

        /// The Live Activity keys, which mean something only with push type `liveactivity`.
        static let liveActivityKeys: Set<String> = [
            "content-state", "timestamp", "event", "stale-date", "dismissal-date", "attributes-type", "attributes",
            "input-push-token", "input-push-channel",
        ]

        /// Other keys Apple defines in `aps`.
        static let otherKeys: Set<String> = [
            "target-content-id", "interruption-level", "relevance-score", "filter-criteria", "url-args",
        ]

        static let interruptionLevels = ["passive", "active", "time-sensitive", "critical"]
        static let liveActivityEvents = ["start", "update", "end"]

        static func run(_ aps: JSONObject, _ context: Context, into found: inout [APNSDiagnostic]) {
            for member in aps.members {
                let path = "aps.\(member.key)"
                if liveActivityKeys.contains(member.key), context.pushType != .liveactivity {
                    found.append(
                        .warning(
                            rule: "liveactivity-key-outside-liveactivity",
                            at: path,
                            "'\(member.key)' is a Live Activity key; iOS reads it only with apns-push-type "
                                + "liveactivity (this push is \(context.pushType))"
                        )
                    )
                }
                check(member.key, member.value, path: path, context, into: &found)
            }
        }

        private static func check(
            _ key: String,
            _ value: JSONValue,
            path: String,
            _ context: Context,
            into found: inout [APNSDiagnostic]
        ) {
            switch key {
            case "alert": AlertCheck.run(value, context, into: &found)
            case "badge": checkBadge(value, into: &found)
            case "sound": SoundCheck.run(value, at: path, into: &found)
            case "content-available", "mutable-content", "input-push-token":
                checkFlag(key, value, into: &found)
            case "thread-id", "category", "target-content-id", "filter-criteria", "attributes-type",
                "input-push-channel":
                expect(.string(""), value, at: path, into: &found)
            case "interruption-level": checkOneOf(interruptionLevels, value, at: path, into: &found)
            case "event": checkOneOf(liveActivityEvents, value, at: path, into: &found)
            case "relevance-score": checkRelevance(value, context, into: &found)
            case "timestamp", "stale-date", "dismissal-date": checkTime(value, at: path, into: &found)
            case "content-state", "attributes": expect(.object(JSONObject()), value, at: path, into: &found)
            case "url-args": checkStringArray(value, at: path, into: &found)
            case "content-changed": WidgetCheck.checkContentChanged(value, context, into: &found)
            default: warnCustomKeyInAps(key, value, into: &found)
            }
        }

        private static func checkBadge(_ value: JSONValue, into found: inout [APNSDiagnostic]) {
            switch value {
            case .number(let number) where number.intValue.map { $0 >= 0 } == true:
                return
            case .number(let number):
                found.append(
                    .warning(
                        rule: "badge-not-a-count",
                        at: "aps.badge",
                        "badge \(number) is not a whole number of 0 or more; iOS ignores it (0 removes the badge)"
                    )
                )
            case .string(let text):
                let fix = Int(text).map { "write \($0) without quotes" } ?? "write a number"
                found.append(
                    .warning(
                        rule: "badge-not-a-number",
                        at: "aps.badge",
                        "badge is the string \"\(text)\"; iOS ignores a badge that is not a number: \(fix)"
                    )
                )
            default:
                found.append(
                    .warning(
                        rule: "badge-not-a-number",
                        at: "aps.badge",
                        "badge is a \(value.typeName); iOS ignores a badge that is not a number"
                    )
                )
            }
        }

        private static func checkFlag(_ key: String, _ value: JSONValue, into found: inout [APNSDiagnostic]) {
            if value.number?.intValue == 1 { return }
            let what: String
            switch value {
            case .string(let text): what = "the string \"\(text)\""
            case .number(let number): what = "\(number)"
            default: what = "a \(value.typeName)"
            }
            found.append(
                .warning(
                    rule: "\(key)-not-1",
                    at: "aps.\(key)",
                    "\(key) is \(what); iOS acts on it only when it is the number 1: write 1, or leave the key out"
                )
            )
        }

        private static func checkRelevance(_ value: JSONValue, _ context: Context, into found: inout [APNSDiagnostic]) {
            guard let number = value.number else {
                expect(.number(JSONNumber(0)), value, at: "aps.relevance-score", into: &found)
                return
            }
            if context.pushType != .liveactivity, !(0...1).contains(number.doubleValue) {
                found.append(
                    .warning(
                        rule: "relevance-score-out-of-range",
                        at: "aps.relevance-score",
                        "relevance-score \(number) is outside 0 to 1; iOS clamps it"
                    )
                )
            }
        }

        private static func checkTime(_ value: JSONValue, at path: String, into found: inout [APNSDiagnostic]) {
            guard let number = value.number else {
                expect(.number(JSONNumber(0)), value, at: path, into: &found)
                return
            }
            if number.doubleValue > 100_000_000_000 {
                found.append(
                    .warning(
                        rule: "time-in-milliseconds",
                        at: path,
                        "\(path) is \(number), which looks like milliseconds; Live Activity times are UNIX seconds"
                    )
                )
            }
        }

        private static func warnCustomKeyInAps(_ key: String, _ value: JSONValue, into found: inout [APNSDiagnostic]) {
            var message =
                "'\(key)' is not an aps key; Apple says APNs ignores custom keys inside aps, so the app and its "
                + "extensions cannot rely on it. Put it beside \"aps\" and read it from userInfo"
            if let text = value.string, text.hasPrefix("http://") || text.hasPrefix("https://") {
                message +=
                    " (a media URL for the service extension belongs at the top level: "
                    + "{\"aps\": {...}, \"\(key)\": \"\(text)\"})"
            }
            found.append(.warning(rule: "custom-key-in-aps", at: "aps.\(key)", message))
        }

        static func checkOneOf(
            _ allowed: [String],
            _ value: JSONValue,
            at path: String,
            into found: inout [APNSDiagnostic]
        ) {
            guard let text = value.string else {
                expect(.string(""), value, at: path, into: &found)
                return
            }
            if !allowed.contains(text) {
                found.append(
                    .warning(
                        rule: "value-not-allowed",
                        at: path,
                        "\"\(text)\" is not one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", ")); iOS "
                            + "ignores it"
                    )
                )
            }
        }

        static func checkStringArray(_ value: JSONValue, at path: String, into found: inout [APNSDiagnostic]) {
            guard let elements = value.array else {
                expect(.array([]), value, at: path, into: &found)
                return
            }
            if let index = elements.firstIndex(where: { $0.string == nil }) {
                found.append(
                    .warning(
                        rule: "array-element-not-string",
                        at: "\(path)[\(index)]",
                        "element \(index) is a \(elements[index].typeName); iOS expects strings here: quote it"
                    )
                )
            }
        }

        /// Warns when `value` is not of the same JSON type as `example`.
        static func expect(
            _ example: JSONValue, _ value: JSONValue, at path: String, into found: inout [APNSDiagnostic]
        ) {
            guard value.typeName != example.typeName else { return }
            found.append(
                .warning(
                    rule: "wrong-type",
                    at: path,
                    "\(path) is a \(value.typeName); iOS expects a\(example.typeName == "array" || example.typeName == "object" ? "n" : "") \(example.typeName) and ignores it otherwise"
                )
            )
        }
    }
}
