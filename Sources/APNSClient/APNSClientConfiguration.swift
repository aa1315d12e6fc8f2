import Foundation
public import HeraldTime
public import Logging

extension APNSPushClient {
    /// Everything a client needs: where to send, how to authenticate, and its limits.
    public struct Configuration: Sendable {
        /// Where notifications go.
        public var endpoint: APNSEndpoint
        /// How the client authenticates.
        public var authentication: APNSClientAuthentication
        /// The most connections the pool opens; a new one opens only when every open one is using all the streams
        /// its server allows.
        public var maximumConnections = 1
        /// The most streams used at once on one connection, however many its server allows. By default the
        /// server's `SETTINGS_MAX_CONCURRENT_STREAMS` decides, as it changes (APNs: 1 until a provider token is
        /// accepted, then 1,000): across the internet a connection carries at most (streams in flight) / (round-trip
        /// time), so at 50 ms 1,000 streams allow 20,000 notifications a second where 100 allowed 2,000.
        public var maximumStreamsPerConnection = 1000
        /// The most notifications in flight or waiting inside the client at once; a bulk send waits for room.
        public var maximumPendingNotifications = 4096
        /// How long a notification may take, retries included, when the caller gives no deadline.
        public var timeout: Duration = .seconds(30)
        /// How long opening a connection (TCP and TLS) may take.
        public var connectTimeout: Duration = .seconds(10)
        /// A connection that has received nothing for this long is sent a PING.
        public var pingInterval: Duration = .seconds(60)
        /// A PING not answered within this time closes the connection; its notifications are retried elsewhere.
        public var pingTimeout: Duration = .seconds(10)
        /// When and how often to send again.
        public var retryPolicy = APNSRetryPolicy()
        /// Where the client says what it does: a connection that cannot be opened (warning), a notification sent
        /// again (info), APNs' final refusals (debug). Each line carries `apns-id`, a token prefix and the reason.
        public var logger = Logger(label: "herald-apns-client")
        /// Metrics hooks.
        public var observer: any APNSClientObserver = SilentObserver()
        /// The clock provider tokens are dated by; tests give a `ManualClock` and move it instead of waiting. (Deadlines
        /// and PINGs run on the connection's event loop.)
        public var clock: any WallClock = SystemWallClock()

        public init(endpoint: APNSEndpoint, authentication: APNSClientAuthentication) {
            self.endpoint = endpoint
            self.authentication = authentication
        }
    }
}
