import APNSCore
import ActivityKit
import Courier
import Crypto
import Foundation
import HeraldKit
import Synchronization
import UserNotifications
import WidgetKit

/// An app on a simulated device: its manifest, its own notification center, its end-to-end key and, once the
/// gateway answered, its device token.
final class InstalledApp: Sendable {
    let manifest: AppManifest
    let center: UNUserNotificationCenter
    let privateKey: Curve25519.KeyAgreement.PrivateKey
    /// The app's HeraldKit, when the device registers with a Herald provider: registration, receipts, categories
    /// and activity and widget tokens go through it, as an iOS app's do.
    let herald: Herald?
    private let delegate: SimulatedAppDelegate
    /// The token this app had before the gateway gave it a new one, until the provider has been told (a
    /// registration URL that is not a Herald provider's: HeraldKit keeps its own).
    private let replaced = Mutex<APNSDeviceToken?>(nil)
    private let currentToken: Mutex<(token: APNSDeviceToken?, secret: String?)>
    /// The app's Live Activities, when its manifest declares activity types.
    let activities: ActivitySystem?
    /// The app's widgets and controls that take pushes, when its manifest declares some.
    let widgets: WidgetSystem?
    /// The tokens the gateway issued for the app's activities (push-to-start and update) with their secrets, so a
    /// new courier connection registers them again.
    private let extraRegistrations = Mutex<[APNSDeviceToken: String?]>([:])

    init(
        manifest: AppManifest, dataDirectory: URL, privateKey: Curve25519.KeyAgreement.PrivateKey,
        savedToken: APNSDeviceToken?, savedSecret: String?, contentExtension: (any UNNotificationContentExtension)?,
        herald: Herald?
    ) async {
        self.manifest = manifest
        self.privateKey = privateKey
        self.herald = herald
        self.currentToken = Mutex((savedToken, savedSecret))
        if manifest.activityTypes.isEmpty {
            activities = nil
        } else {
            let system = ActivitySystem()
            for type in manifest.activityTypes { system.declare(type: type.name) }
            system.setPriority10Budget(
                manifest.activityPriority10Budget, frequentUpdates: manifest.supportsFrequentUpdates)
            activities = system
        }
        if manifest.widgets.isEmpty && manifest.controls.isEmpty {
            widgets = nil
        } else {
            let system = WidgetSystem()
            system.declare(widgets: manifest.widgets, controls: manifest.controls, budget: manifest.widgetReloadBudget)
            widgets = system
        }
        var configuration = UNUserNotificationCenter.Configuration()
        configuration.bundleIdentifier = manifest.bundleID
        configuration.dataStore = dataDirectory.appendingPathComponent("attachments/\(manifest.bundleID)")
        center = UNUserNotificationCenter(configuration: configuration)
        delegate = SimulatedAppDelegate()
        center.delegate = delegate
        center.isAppInForeground = manifest.foreground
        center.authorizationAnswer = manifest.authorization.granted ? .allow : .deny
        _ = try? await center.requestAuthorization(options: manifest.authorization.options)
        if let config = manifest.notificationConfig { center.setNotificationCategories(config.makeCategories()) }
        if let attributes = manifest.contentExtension {
            center.installContentExtension(contentExtension ?? ManifestContentExtension(), attributes: attributes)
        }
    }

    var token: APNSDeviceToken? { currentToken.withLock { $0.token } }

    /// The categories the app declares itself (its manifest's), kept beside the provider's.
    var ownCategories: Set<UNNotificationCategory> { manifest.notificationConfig?.makeCategories() ?? [] }

    /// The device secret that proves ``token`` is this device's.
    var secret: String? { currentToken.withLock { $0.secret } }

    /// Keeps what the gateway answered: the token, and its secret when the gateway made a new one.
    ///
    /// - Returns: whether the token changed (the app must register it with its provider again).
    @discardableResult
    func registered(_ registration: CourierClient.Registration) -> Bool {
        let old = currentToken.withLock { current in
            let old = current.token
            if registration.token != current.token || registration.secret != nil {
                current = (registration.token, registration.secret)
            }
            return old
        }
        guard let old, old != registration.token else { return old == nil }
        replaced.withLock { $0 = $0 ?? old }
        return true
    }

    /// The token the provider still has for this app, when the gateway has given it a new one since.
    var replacedToken: APNSDeviceToken? { replaced.withLock { $0 } }

    /// The provider has been told about ``replacedToken``.
    func replacementReported(_ token: APNSDeviceToken) {
        replaced.withLock { if $0 == token { $0 = nil } }
    }

    /// Keeps a token the gateway issued beside the app's own: an activity's, its widgets' or a control's.
    func issuedExtraToken(_ registration: CourierClient.Registration) {
        // A registration again proves the secret kept, and answers none: the kept one stays.
        extraRegistrations.withLock { registrations in
            if let secret = registration.secret {
                registrations[registration.token] = secret
            } else if registrations[registration.token] == nil {
                registrations[registration.token] = .some(nil)
            }
        }
    }

    /// Forgets an ended activity's token: a new connection does not register it again.
    func forgetActivityToken(_ token: APNSDeviceToken) {
        _ = extraRegistrations.withLock { $0.removeValue(forKey: token) }
    }

    /// Whether the gateway issued `token` for one of the app's activities, its widgets or its controls.
    func ownsExtraToken(_ token: APNSDeviceToken) -> Bool {
        extraRegistrations.withLock { $0[token] != nil }
    }

    /// The extra tokens (activities', widgets', controls') with their secrets, registered again on a new connection.
    var extraTokenRegistrations: [(token: APNSDeviceToken, secret: String?)] {
        extraRegistrations.withLock { $0.map { ($0.key, $0.value) } }
    }

    /// The public key a provider seals end-to-end content to, as base64 of its 32 raw bytes.
    var publicKeyBase64: String { privateKey.publicKey.rawRepresentation.base64EncodedString() }
}

/// The simulated app's delegate: in the foreground it shows every notification (banner, list, sound, badge), as an
/// app that wants its notifications seen does.
private final class SimulatedAppDelegate: NSObject, UNUserNotificationCenterDelegate, Sendable {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        [.banner, .list, .sound, .badge]
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
    }
}

/// The content extension a manifest's `contentExtension` installs: it shows the notification's title, body and first
/// image attachment, and leaves actions to the app.
// Safety: `view` is only touched under its Mutex.
final class ManifestContentExtension: NotificationContentRendering, @unchecked Sendable {
    private let view = Mutex(NotificationContentView())

    func didReceive(_ notification: UNNotification) {
        let content = notification.request.content
        let image = content.attachments.first { $0.kind == .image }
        view.withLock {
            $0 = NotificationContentView(title: content.title, body: content.body, imagePath: image?.url.path)
        }
    }

    var handlesResponses: Bool { false }

    var contentView: NotificationContentView { view.withLock { $0 } }
}
