import APNSCore
import ActivityKit
import Courier
import Foundation

/// ActivityKit's device side for one app of a simulated device: tokens the gateway issues over the device's current
/// courier connection (kept by the app, so a new connection registers them again), channel subscriptions held by
/// the app's own token.
struct SimulatedActivityTransport: ActivityTransport {
    let app: InstalledApp
    /// The device's courier connection now, if any.
    let courier: @Sendable () -> CourierClient?

    func makeUpdateToken() async throws -> Data {
        try await issueToken()
    }

    func makePushToStartToken(attributesType: String) async throws -> Data {
        try await issueToken()
    }

    func subscribe(channel: String) async throws {
        guard let id = APNSChannelID(rawValue: channel) else {
            throw DeviceError("not a channel ID: \(APNSChannelID.problem(with: channel) ?? channel)")
        }
        let (client, token) = try connected()
        try await client.subscribe(token, to: id)
    }

    func unsubscribe(channel: String) async {
        guard let id = APNSChannelID(rawValue: channel), let (client, token) = try? connected() else { return }
        try? await client.unsubscribe(token, from: id)
    }

    private func issueToken() async throws -> Data {
        let (client, _) = try connected()
        let registration = try await client.register(
            bundleID: app.manifest.bundleID, environment: app.manifest.environment)
        app.issuedExtraToken(registration)
        return registration.token.bytes
    }

    private func connected() throws(DeviceError) -> (CourierClient, APNSDeviceToken) {
        guard let client = courier(), let token = app.token else {
            throw DeviceError("\(app.manifest.bundleID) is not connected to the gateway yet")
        }
        return (client, token)
    }
}
