extension APNSLinter {
    /// The payload rules: structure, then `aps` keys one by one, then the combinations iOS cares about.
    enum PayloadCheck {
        static func run(_ payload: APNSPayload, _ context: Context, into found: inout [APNSDiagnostic]) {
            checkDuplicates(.object(payload.root), at: nil, into: &found)
            guard !context.pushType.hasFreeFormPayload else { return }
            guard let apsValue = payload["aps"] else {
                found.append(
                    .warning(
                        rule: "missing-aps",
                        "the payload has no 'aps' dictionary; iOS shows nothing and does not wake the app. Put "
                            + "alert, badge, sound or content-available inside \"aps\": {...}"
                    )
                )
                checkCustomKeys(payload, into: &found)
                return
            }
            guard case .object(let aps) = apsValue else {
                found.append(
                    .warning(
                        rule: "aps-not-an-object",
                        at: "aps",
                        "'aps' is a \(apsValue.typeName); iOS ignores it unless it is a dictionary"
                    )
                )
                return
            }
            ApsKeyCheck.run(aps, context, into: &found)
            CombinationCheck.run(aps, context, into: &found)
            checkCustomKeys(payload, into: &found)
        }

        /// Top-level keys named like `aps` keys are almost always misplaced.
        private static func checkCustomKeys(_ payload: APNSPayload, into found: inout [APNSDiagnostic]) {
            for key in payload.customKeys where ApsKeyCheck.commonKeys.contains(key) {
                found.append(
                    .warning(
                        rule: "aps-key-outside-aps",
                        at: key,
                        "'\(key)' is an aps key written beside 'aps'; iOS treats it as custom data. Move it inside "
                            + "\"aps\""
                    )
                )
            }
        }

        private static func checkDuplicates(_ value: JSONValue, at path: String?, into found: inout [APNSDiagnostic]) {
            switch value {
            case .object(let object):
                for key in object.duplicateKeys {
                    found.append(
                        .warning(
                            rule: "duplicate-key",
                            at: join(path, key),
                            "'\(key)' is written more than once; readers disagree on which one counts (iOS keeps "
                                + "one). Keep one"
                        )
                    )
                }
                for member in object.members { checkDuplicates(member.value, at: join(path, member.key), into: &found) }
            case .array(let elements):
                for (index, element) in elements.enumerated() {
                    checkDuplicates(element, at: "\(path ?? "")[\(index)]", into: &found)
                }
            default:
                break
            }
        }

        static func join(_ path: String?, _ key: String) -> String {
            path.map { "\($0).\(key)" } ?? key
        }
    }
}
