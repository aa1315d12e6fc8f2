/// The app `herald up` installs on its simulated device: the RITL demo (examples/000-ritl-demo).
enum DemoApp {
    static let category = "com.yue.originPush.myNotificationCategory"
    /// The user the simulated device is signed in as, so a push to `{"user": "demo"}` reaches it.
    static let user = "demo"
    /// The demo app's bundle ID, its topic.
    static let bundleID = "com.yue.originPush"
    /// The Live Activity type the demo app declares (a live score), so pushes can start and update activities.
    static let scoreActivityType = "ScoreAttributes"
    // Its widget (`ScoreWidget`) and control (`MuteControl`) take WidgetKit pushes: their tokens reach the provider.

    static let manifest = """
        {
          "bundleID": "com.yue.originPush",
          "authorization": {"granted": true, "options": ["alert", "badge", "sound"]},
          "NotificationConfig": {
            "UNNotificationCategory": {
              "\(category)": {"identifier": "\(category)",
                "actions": ["foregroundAction", "destructiveTextAction"], "options": 1}
            },
            "UNNotificationAction": {
              "foregroundAction": {"identifier": "foregroundAction", "title": "收到了", "options": 4,
                "systemImageName": "checkmark.circle"},
              "destructiveTextAction": {"identifier": "destructiveTextAction", "title": "我想说两句", "options": 6,
                "textInputButtonTitle": "发送", "textInputPlaceholder": "想说什么?"}
            }
          },
          "serviceExtension": [{"rewrite": {"body": "我是在Service里面修改后的title"}}, {"attachFrom": "media-url"}],
          "activityTypes": [{"name": "\(scoreActivityType)", "attributes": {"home": "Lions", "away": "Tigers"},
            "contentState": {"score": "0-0"}}],
          "widgets": ["ScoreWidget"],
          "controls": ["MuteControl"]
        }
        """
}
