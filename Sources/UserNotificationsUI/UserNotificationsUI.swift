// The module iOS content extensions import for `UNNotificationContentExtension`; on Linux the protocol lives in
// UserNotifications and is re-exported here so `import UserNotificationsUI` compiles unchanged.
@_exported import UserNotifications
