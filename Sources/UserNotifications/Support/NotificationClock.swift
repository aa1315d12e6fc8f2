@_exported public import HeraldTime

/// Where the notification system reads the wall-clock time (``WallClock``), so tests can move time instead of waiting.
public typealias NotificationClock = WallClock

/// The real time.
public typealias SystemNotificationClock = SystemWallClock
