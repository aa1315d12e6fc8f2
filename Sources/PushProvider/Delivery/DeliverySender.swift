import APNSClient
import ProviderStorage

/// What the delivery engine sends one app's notifications with: ``APNSPushClient`` in the provider, a fake in the
/// engine's tests.
protocol DeliverySender: Sendable {
    /// Sends `notifications` and reports each one's outcome, its ``APNSSendOutcome/index`` its position in them
    /// (``APNSPushClient/send(contentsOf:onResult:)``).
    func send(
        contentsOf notifications: some Sequence<APNSNotification>,
        onResult: @escaping @Sendable (APNSSendOutcome) -> Void
    ) async throws(APNSClientError)
}

/// Where the delivery engine finds each app's sender: ``ClientRegistry`` in the provider.
protocol DeliverySenders: Sendable {
    /// The sender for `app`, made from its credentials.
    ///
    /// - Throws: ``ProviderError`` when its credentials cannot be opened or used.
    func sender(for app: StoredApp) async throws(ProviderError) -> any DeliverySender
}

extension APNSPushClient: DeliverySender {}

extension ClientRegistry: DeliverySenders {
    func sender(for app: StoredApp) throws(ProviderError) -> any DeliverySender {
        try client(for: app)
    }
}
