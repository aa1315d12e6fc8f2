public import Foundation
public import Logging
public import UserNotifications

extension SimulatedDevice {
    /// Where a device connects, what it runs and where it reports.
    public struct Configuration: Sendable {
        /// The gateway's host (`herald gateway --host`).
        public var gatewayHost: String
        /// The gateway's port.
        public var gatewayPort: Int
        /// The gateway's CA certificate in PEM (`DATA/ca.pem`).
        public var caPEM: String
        /// The installed apps.
        public var apps: [AppManifest]
        /// Where tokens, keys and attachments are kept (`device.json`, `attachments/`, `downloads/`).
        public var dataDirectory: URL
        /// Each token is POSTed here after registration (`token`, `bundleID`, `environment`, `publicKey`), as an
        /// app does from `didRegisterForRemoteNotificationsWithDeviceToken`.
        public var registerURL: URL?
        /// The signed-in user the registration binds the device to, with the user token the app's server got for
        /// them from the provider (`POST /v1/users/{userID}/token`); without the token a provider refuses the binding.
        public var user: (id: String, token: String)?
        /// Every delivery, display and response is POSTed here (``DeviceEvent/reportJSON``).
        public var reportURL: URL?
        /// Hosts (`host` or `host:port`) on loopback or private addresses that attachment downloads may still reach
        /// (`herald device --allow-attachment-host`); other such addresses are refused, as a server should.
        public var allowedAttachmentHosts: [String] = []
        /// Broadcast channels every app's activity subscribes to as soon as the device connects (`herald device
        /// --subscribe`): each broadcast on them is received and acknowledged.
        public var channelSubscriptions: [String] = []
        /// How long a service extension has before `serviceExtensionTimeWillExpire()` (30 seconds on iOS).
        public var serviceExtensionTimeLimit: Duration = .seconds(30)
        /// Every event is also logged here at debug level, with its kind, app, `apns-id` and a token prefix.
        public var logger = Logger(label: "herald-device")
        /// A user's own service extensions by bundle ID, replacing the manifest's steps for that app.
        public var serviceExtensions: [String: @Sendable () -> UNNotificationServiceExtension] = [:]
        /// A user's own content extensions by bundle ID, replacing the built-in one.
        public var contentExtensions: [String: @Sendable () -> any UNNotificationContentExtension] = [:]

        public init(gatewayHost: String, gatewayPort: Int, caPEM: String, apps: [AppManifest], dataDirectory: URL) {
            self.gatewayHost = gatewayHost
            self.gatewayPort = gatewayPort
            self.caPEM = caPEM
            self.apps = apps
            self.dataDirectory = dataDirectory
        }
    }
}
