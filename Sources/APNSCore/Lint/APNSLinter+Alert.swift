extension APNSLinter {
    /// The rules of `aps.alert` (table 2 of "Generating a remote notification").
    enum AlertCheck {
        static let textKeys = [
            "title", "subtitle", "body", "launch-image", "title-loc-key", "subtitle-loc-key",
            "loc-key", "action-loc-key", "action", "summary-arg",
        ]
        static let argumentKeys = [
            "title-loc-args": "title-loc-key", "subtitle-loc-args": "subtitle-loc-key",
            "loc-args": "loc-key",
        ]
        static let visibleKeys = ["title", "subtitle", "body", "title-loc-key", "subtitle-loc-key", "loc-key"]

        /// Whether `alert` gives iOS text to show: a non-empty string, or a dictionary with a non-empty title,
        /// subtitle, body or localization key.
        static func hasText(_ alert: JSONValue?) -> Bool {
            switch alert {
            case .string(let text)?: return !text.isEmpty
            case .object(let object)?:
                return visibleKeys.contains { key in
                    switch object[key] {
                    case .string(let text)?: !text.isEmpty
                    case .object?: true
                    default: false
                    }
                }
            default: return false
            }
        }

        static func run(_ alert: JSONValue, _ context: Context, into found: inout [APNSDiagnostic]) {
            switch alert {
            case .string(let text):
                if text.isEmpty {
                    found.append(
                        .warning(
                            rule: "alert-empty", at: "aps.alert", "the alert is an empty string; iOS shows nothing"))
                }
            case .object(let object):
                checkMembers(object, context, into: &found)
                if !hasText(alert) {
                    found.append(
                        .warning(
                            rule: "alert-without-text",
                            at: "aps.alert",
                            "the alert has no title, subtitle, body or loc-key; iOS shows no banner for it"
                        )
                    )
                }
            default:
                found.append(
                    .warning(
                        rule: "wrong-type",
                        at: "aps.alert",
                        "aps.alert is a \(alert.typeName); iOS expects a string (the body) or a dictionary"
                    )
                )
            }
        }

        private static func checkMembers(_ object: JSONObject, _ context: Context, into found: inout [APNSDiagnostic]) {
            let liveActivity = context.pushType == .liveactivity
            for member in object.members {
                let path = "aps.alert.\(member.key)"
                if liveActivity, ["title", "body"].contains(member.key), case .object(let localized) = member.value {
                    checkLocalizedText(localized, at: path, into: &found)
                } else if liveActivity, member.key == "sound" {
                    SoundCheck.run(member.value, at: path, into: &found)
                } else if textKeys.contains(member.key) {
                    ApsKeyCheck.expect(.string(""), member.value, at: path, into: &found)
                } else if let keyName = argumentKeys[member.key] {
                    ApsKeyCheck.checkStringArray(member.value, at: path, into: &found)
                    if object[keyName] == nil {
                        found.append(
                            .warning(
                                rule: "loc-args-without-loc-key",
                                at: path,
                                "\(member.key) is given without \(keyName); iOS ignores the arguments"
                            )
                        )
                    }
                } else if member.key == "summary-arg-count" {
                    ApsKeyCheck.expect(.number(JSONNumber(0)), member.value, at: path, into: &found)
                } else {
                    found.append(
                        .warning(
                            rule: "unknown-alert-key",
                            at: path,
                            "'\(member.key)' is not an alert key; iOS ignores it (keys: title, subtitle, body, "
                                + "launch-image and their -loc-key and -loc-args forms)"
                        )
                    )
                }
            }
        }

        /// A Live Activity title or body written as `{"loc-key": ..., "loc-args": [...]}`.
        private static func checkLocalizedText(
            _ object: JSONObject, at path: String, into found: inout [APNSDiagnostic]
        ) {
            if let key = object["loc-key"] {
                ApsKeyCheck.expect(.string(""), key, at: "\(path).loc-key", into: &found)
            } else {
                found.append(.warning(rule: "localized-text-without-loc-key", at: path, "\(path) needs a loc-key"))
            }
            if let arguments = object["loc-args"] {
                ApsKeyCheck.checkStringArray(arguments, at: "\(path).loc-args", into: &found)
            }
        }
    }

    /// The rules of `aps.sound`: a file name, or a critical-alert dictionary (table 3).
    enum SoundCheck {
        static func run(_ sound: JSONValue, at path: String, into found: inout [APNSDiagnostic]) {
            switch sound {
            case .string(let name):
                if name.isEmpty {
                    found.append(
                        .warning(
                            rule: "sound-empty",
                            at: path,
                            "the sound name is empty; iOS plays nothing. Use \"default\" or a file name"
                        )
                    )
                }
            case .object(let object):
                checkCritical(object, at: path, into: &found)
            default:
                found.append(
                    .warning(
                        rule: "wrong-type",
                        at: path,
                        "\(path) is a \(sound.typeName); iOS expects a file name or a critical-alert dictionary"
                    )
                )
            }
        }

        private static func checkCritical(_ object: JSONObject, at path: String, into found: inout [APNSDiagnostic]) {
            if let name = object["name"] {
                ApsKeyCheck.expect(.string(""), name, at: "\(path).name", into: &found)
            } else {
                found.append(
                    .warning(
                        rule: "critical-sound-without-name",
                        at: path,
                        "a sound dictionary needs a name (\"default\" for the system sound); iOS plays nothing"
                    )
                )
            }
            if let critical = object["critical"], critical.number.map({ [0, 1].contains($0.intValue) }) != true {
                found.append(.warning(rule: "critical-not-flag", at: "\(path).critical", "critical is 1 or 0"))
            }
            if let volume = object["volume"] {
                if let level = volume.number?.doubleValue, !(0...1).contains(level) {
                    found.append(
                        .warning(rule: "volume-out-of-range", at: "\(path).volume", "volume \(level) is outside 0 to 1")
                    )
                } else {
                    ApsKeyCheck.expect(.number(JSONNumber(0)), volume, at: "\(path).volume", into: &found)
                }
            }
            for key in object.keys where !["name", "critical", "volume"].contains(key) {
                found.append(
                    .warning(
                        rule: "unknown-sound-key", at: "\(path).\(key)", "'\(key)' is not a sound key; iOS ignores it")
                )
            }
        }
    }
}
