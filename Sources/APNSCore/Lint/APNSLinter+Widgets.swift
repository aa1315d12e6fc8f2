extension APNSLinter {
    /// The rules of a WidgetKit push ("Updating widgets with WidgetKit push notifications"): `widgets`
    /// (iOS 26) and `controls` (iOS 18) pushes carry `{"aps": {"content-changed": true}}`, go to the topic
    /// `<bundle ID>.push-type.widgets` or `.push-type.controls`, and show nothing: WidgetKit reloads the timelines
    /// (or the control) instead.
    enum WidgetCheck {
        static func run(
            _ aps: JSONObject, visible: [String], _ context: Context, into found: inout [APNSDiagnostic]
        ) {
            if aps["content-changed"] == nil {
                found.append(
                    .warning(
                        rule: "widgets-without-content-changed", at: "aps",
                        "a \(context.pushType) push needs \"content-changed\": true; WidgetKit reloads nothing "
                            + "without it"))
            }
            for key in visible {
                found.append(
                    .warning(
                        rule: "widgets-push-shows-nothing", at: "aps.\(key)",
                        "'\(key)' in a \(context.pushType) push is not shown: WidgetKit only reloads; send an alert "
                            + "push to the app's own token to tell the person"))
            }
        }

        /// `content-changed` is `true`, and only in a `widgets` or `controls` push.
        static func checkContentChanged(_ value: JSONValue, _ context: Context, into found: inout [APNSDiagnostic]) {
            if context.pushType != .widgets, context.pushType != .controls {
                found.append(
                    .warning(
                        rule: "content-changed-outside-widgets", at: "aps.content-changed",
                        "'content-changed' means something only in a widgets or controls push (this push is "
                            + "\(context.pushType)); send it with apns-push-type widgets to the topic "
                            + "<bundle ID>.push-type.widgets"))
                return
            }
            guard case .bool(true) = value else {
                found.append(
                    .warning(
                        rule: "content-changed-not-true", at: "aps.content-changed",
                        "'content-changed' is true for WidgetKit to reload; got \(value.jsonString)"))
                return
            }
        }
    }
}
