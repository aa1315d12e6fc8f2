package import APNSCore
package import ActivityKit
package import Courier
package import Foundation

/// ActivityKit's device side over a courier connection: each activity's push token and each push-to-start token is
/// a token the gateway issues for the app; channel subscriptions are the app token's.
package struct CourierActivityTransport: ActivityTransport {
    private let courier: CourierClient
    private let appToken: APNSDeviceToken
    private let bundleID: String
    private let environment: APNSEnvironment

    /// - Parameters:
    ///   - courier: the device's courier connection.
    ///   - appToken: the app's registered token, which holds the channel subscriptions.
    ///   - bundleID: the app.
    ///   - environment: its environment.
    package init(courier: CourierClient, appToken: APNSDeviceToken, bundleID: String, environment: APNSEnvironment) {
        self.courier = courier
        self.appToken = appToken
        self.bundleID = bundleID
        self.environment = environment
    }

    package func makeUpdateToken() async throws -> Data {
        try await courier.register(bundleID: bundleID, environment: environment).token.bytes
    }

    package func makePushToStartToken(attributesType: String) async throws -> Data {
        try await courier.register(bundleID: bundleID, environment: environment).token.bytes
    }

    package func subscribe(channel: String) async throws {
        guard let id = APNSChannelID(rawValue: channel) else {
            throw GatewayDataError(APNSChannelID.problem(with: channel) ?? "not a channel ID")
        }
        try await courier.subscribe(appToken, to: id)
    }

    package func unsubscribe(channel: String) async {
        guard let id = APNSChannelID(rawValue: channel) else { return }
        try? await courier.unsubscribe(appToken, from: id)
    }

    /// Hands a courier event to ActivityKit when it is for an activity (a `liveactivity` push or a broadcast) and
    /// acknowledges it.
    ///
    /// - Returns: whether the event was an activity's.
    @discardableResult
    package static func deliver(_ event: CourierClient.Event, to system: ActivitySystem, on courier: CourierClient)
        -> Bool
    {
        switch event {
        case .notification(let notification) where notification.pushType == .liveactivity:
            _ = system.receivePush(
                Data(notification.payload), token: notification.token.bytes,
                priority: Int(notification.priority.rawValue))
            courier.acknowledge(notification)
            return true
        case .broadcast(let broadcast, let token):
            system.receiveBroadcast(Data(broadcast.payload), channel: broadcast.channelID.rawValue)
            courier.acknowledge(broadcast, token: token)
            return true
        default:
            return false
        }
    }
}
