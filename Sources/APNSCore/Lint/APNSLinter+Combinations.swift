extension APNSLinter {
    /// Rules about keys together and about the payload against its push type.
    enum CombinationCheck {
        static func run(_ aps: JSONObject, _ context: Context, into found: inout [APNSDiagnostic]) {
            let hasAlertText = AlertCheck.hasText(aps["alert"])
            let visible = ["alert", "badge", "sound"].filter { aps[$0] != nil }
            let wakes = aps["content-available"]?.number?.intValue == 1
            if aps["mutable-content"]?.number?.intValue == 1, !hasAlertText {
                found.append(
                    .warning(
                        rule: "mutable-content-without-alert",
                        at: "aps.mutable-content",
                        "mutable-content is 1 but there is no alert text, so the service extension will not run: "
                            + "iOS runs it only for notifications that show an alert. Add a title or body"
                    )
                )
            }
            switch context.pushType {
            case .background:
                checkBackground(visible: visible, hasFlag: aps["content-available"] != nil, into: &found)
            case .alert:
                checkAlert(visible: visible, wakes: wakes, aps: aps, context, into: &found)
            case .liveactivity:
                LiveActivityCheck.run(aps, into: &found)
            case .widgets, .controls:
                WidgetCheck.run(aps, visible: visible, context, into: &found)
            default:
                break
            }
        }

        private static func checkBackground(
            visible: [String],
            hasFlag: Bool,
            into found: inout [APNSDiagnostic]
        ) {
            if !visible.isEmpty {
                found.append(
                    .warning(
                        rule: "background-with-alert",
                        at: "aps",
                        "a background push carries \(visible.joined(separator: ", ")); iOS does not show them for "
                            + "push type background. Send it as push type alert, or remove them"
                    )
                )
            }
            if !hasFlag {
                found.append(
                    .warning(
                        rule: "background-without-content-available",
                        at: "aps",
                        "a background push needs \"content-available\": 1 in aps, or iOS does not wake the app"
                    )
                )
            }
        }

        private static func checkAlert(
            visible: [String],
            wakes: Bool,
            aps: JSONObject,
            _ context: Context,
            into found: inout [APNSDiagnostic]
        ) {
            guard context.pushTypeGiven, visible.isEmpty else { return }
            if wakes {
                found.append(
                    .warning(
                        rule: "alert-push-type-for-background",
                        at: "apns-push-type",
                        "the payload only wakes the app (content-available), but the push type is alert; send it "
                            + "with apns-push-type background and apns-priority 5"
                    )
                )
            } else {
                found.append(
                    .warning(
                        rule: "alert-without-content",
                        at: "aps",
                        "an alert push with no alert, badge or sound shows nothing and wakes nothing"
                    )
                )
            }
        }
    }

    /// The rules of a Live Activity push ("Starting and updating Live Activities with ActivityKit push
    /// notifications").
    enum LiveActivityCheck {
        static func run(_ aps: JSONObject, into found: inout [APNSDiagnostic]) {
            let event = aps["event"]?.string
            if event == nil {
                found.append(
                    .warning(
                        rule: "liveactivity-without-event", at: "aps",
                        "a Live Activity push needs \"event\": "
                            + "\"start\", \"update\" or \"end\"; iOS ignores it otherwise")
                )
            }
            if aps["timestamp"] == nil {
                found.append(
                    .warning(
                        rule: "liveactivity-without-timestamp", at: "aps",
                        "a Live Activity push needs "
                            + "\"timestamp\" (UNIX seconds); iOS drops updates it cannot order")
                )
            }
            if event == "update" || event == "end", aps["content-state"] == nil {
                found.append(
                    .warning(
                        rule: "liveactivity-without-content-state", at: "aps",
                        "a Live Activity \(event ?? "") "
                            + "needs \"content-state\" matching the app's ContentState")
                )
            }
            guard event == "start" else { return }
            for key in ["attributes-type", "attributes", "content-state", "alert"] where aps[key] == nil {
                found.append(
                    .warning(
                        rule: "liveactivity-start-missing-key", at: "aps",
                        "a Live Activity start needs "
                            + "\"\(key)\"; iOS does not start the activity without it")
                )
            }
        }
    }
}
