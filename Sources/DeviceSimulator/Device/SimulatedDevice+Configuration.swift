package import Foundation
package import HeraldSupport
package import Logging
package import UserNotifications

extension SimulatedDevice {
    /// Where a device connects, what it runs and where it reports.
    package struct Configuration: Sendable {
        /// The gateway's host (`herald gateway --host`).
        package var gatewayHost: String
        /// The gateway's port.
        package var gatewayPort: Int
        /// The gateway's CA certificate in PEM (`DATA/ca.pem`).
        package var caPEM: String
        /// The installed apps.
        package var apps: [AppManifest]
        /// Where tokens, keys and attachments are kept (`device.json`, `attachments/`, `downloads/`).
        package var dataDirectory: URL
        /// Each token is POSTed here after registration (`token`, `bundleID`, `environment`, `publicKey`), as an
        /// app does from `didRegisterForRemoteNotificationsWithDeviceToken`.
        package var registerURL: URL?
        /// The signed-in user the registration binds the device to, with the user token the app's server got for
        /// them from the provider (`POST /v1/users/{userID}/token`); without the token a provider refuses the binding.
        package var user: (id: String, token: String)?
        /// Every delivery, display and response is POSTed here (``DeviceEvent/reportJSON``).
        package var reportURL: URL?
        /// Hosts (`host` or `host:port`) on loopback or private addresses that attachment downloads may still reach
        /// (`herald device --allow-attachment-host`); other such addresses are refused, as a server should.
        package var allowedAttachmentHosts: [String] = []
        /// Broadcast channels every app's activity subscribes to as soon as the device connects (`herald device
        /// --subscribe`): each broadcast on them is received and acknowledged.
        package var channelSubscriptions: [String] = []
        /// How long a service extension has before `serviceExtensionTimeWillExpire()` (30 seconds on iOS).
        package var serviceExtensionTimeLimit: Duration = .seconds(30)
        /// Where a push that carries a trace (`traceparent` from the gateway) is traced: its receipt, service
        /// extension and display (`herald device --otlp-endpoint`); `nil`: off.
        package var tracer: HeraldTracer?
        /// Every event is also logged here at debug level, with its kind, app, `apns-id` and a token prefix.
        package var logger = Logger(label: "herald-device")
        /// A user's own service extensions by bundle ID, replacing the manifest's steps for that app.
        package var serviceExtensions: [String: @Sendable () -> UNNotificationServiceExtension] = [:]
        /// A user's own content extensions by bundle ID, replacing the built-in one.
        package var contentExtensions: [String: @Sendable () -> any UNNotificationContentExtension] = [:]

        package init(gatewayHost: String, gatewayPort: Int, caPEM: String, apps: [AppManifest], dataDirectory: URL) {
            self.gatewayHost = gatewayHost
            self.gatewayPort = gatewayPort
            self.caPEM = caPEM
            self.apps = apps
            self.dataDirectory = dataDirectory
        }
    }
}
