public import Foundation

/// What the device does for ActivityKit: issue push tokens and hold channel subscriptions with APNs. A simulated
/// device provides one over its courier connection (`DeviceSimulator`); tests may provide their own.
public protocol ActivityTransport: Sendable {
    /// A new push token for one activity's updates.
    func makeUpdateToken() async throws -> Data
    /// The app's push-to-start token for an attributes type.
    func makePushToStartToken(attributesType: String) async throws -> Data
    /// Subscribes the app to a broadcast channel.
    func subscribe(channel: String) async throws
    /// Ends the app's subscription to a channel.
    func unsubscribe(channel: String) async
}
