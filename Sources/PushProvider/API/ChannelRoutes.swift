import APNSClient
import APNSCore
import Foundation
import HTTPTypes
import HeraldTime
import Hummingbird
import Logging
import ProviderStorage

struct ChannelRoutes: ProviderRouteCollection {
    let store: any ProviderStore
    let clock: any WallClock
    let secrets: SecretBox
    let logger: Logger

    /// `/v1/channels`: an app's broadcast channels, made and deleted at APNs' channel management API
    /// with the app's credentials, and kept here so notifications can target them and the limit is known.
    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("channels") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .send)
            let input = try await JSONCoding.decode(ChannelInput.self, from: request)
            let policy = try Self.storagePolicy(input.storagePolicy)
            if let name = input.name, !(1...256).contains(name.count) {
                throw ProviderError.field("name", "a channel's name is 1 to 256 characters")
            }
            try ProviderError.refuseNUL(input.name, field: "name")
            let count = try await self.store.channels(appID: app.app.id).count
            guard count < Self.channelLimit else {
                throw ProviderError.conflict(
                    "app \(app.app.id) has \(count) channels, APNs' limit per app and environment; delete one first "
                        + "(DELETE /v1/channels/{id})")
            }
            let made = try await self.withChannelClient(for: app) { client throws(APNSRejection) in
                try await client.create(bundleID: app.app.bundleID, storagePolicy: policy).value
            }
            let record = ChannelRecord(
                id: made.rawValue, name: input.name, storagePolicy: policy.rawValue, createdAt: self.now())
            try await self.store.insertChannel(appID: app.app.id, record)
            return try JSONCoding.response(record, status: .created)
        }
        router.get("channels") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .read)
            let channels = try await self.store.channels(appID: app.app.id)
            return try JSONCoding.response(
                ChannelList(channels: channels, count: channels.count, limit: Self.channelLimit))
        }
        router.get("channels/:id") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .read)
            return try JSONCoding.response(try await self.channel(Self.channelID(context), of: app))
        }
        router.delete("channels/:id") { request, context -> HTTPResponse.Status in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .send)
            let channel = try await self.channel(Self.channelID(context), of: app)
            // Safety: stored only after APNs made it.
            let id = APNSChannelID(rawValue: channel.id)!
            try await self.withChannelClient(for: app) { client throws(APNSRejection) in
                do throws(APNSRejection) {
                    try await client.delete(bundleID: app.app.bundleID, channelID: id)
                } catch {
                    // APNs no longer has it (deleted elsewhere): it is forgotten here too.
                    guard error.reason == .channelNotRegistered else { throw error }
                }
            }
            _ = try await self.store.deleteChannel(appID: app.app.id, id: channel.id)
            return .noContent
        }
    }

    /// APNs' limit of channels per app and environment.
    static let channelLimit = 10_000

    /// The answer of `GET /v1/channels`.
    struct ChannelList: Encodable {
        var channels: [ChannelRecord]
        var count: Int
        var limit: Int
    }

    /// One of the app's channels.
    func channel(_ id: String, of app: StoredApp) async throws(ProviderError) -> ChannelRecord {
        guard let channel = try await store.channels(appID: app.app.id).first(where: { $0.id == id }) else {
            throw .notFound("app \(app.app.id) has no channel \(id); GET /v1/channels lists its channels")
        }
        return channel
    }

    /// The channel ID in a path: base64 as APNs gives it, percent-encoded, or base64url (`-` for `+`, `_` for `/`).
    private static func channelID(_ context: AuthenticatedRequestContext) throws -> String {
        let decoded = try context.parameters.decoded("id")
        return decoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    }

    private static func storagePolicy(_ value: Int?) throws(ProviderError) -> APNSChannelStoragePolicy {
        guard let policy = APNSChannelStoragePolicy(rawValue: value ?? 0) else {
            throw .field(
                "storagePolicy", "must be 0 (No Message Stored) or 1 (Most Recent Message Stored, kept up to 8 hours)")
        }
        return policy
    }

    /// Runs `body` with a channel management client for `app` (its own connection, closed afterwards), and turns
    /// APNs' refusals into the provider's errors.
    func withChannelClient<T: Sendable>(
        for app: StoredApp, _ body: (APNSChannelClient) async throws(APNSRejection) -> T
    ) async throws(ProviderError) -> T {
        let client = try ClientRegistry.makeChannelClient(for: app, secrets: secrets, logger: logger)
        defer { Task { await client.shutdown() } }
        do {
            return try await body(client)
        } catch {
            let answer = "APNs' channel management API (\(client.endpoint)) answered \(error)"
            switch error.status {
            case 400?: throw .invalid(field: nil, message: answer)
            case 403?: throw .forbidden(answer)
            case 404?, 410?: throw .notFound(answer)
            case 429?: throw .conflict(answer)
            default: throw .upstream(answer)
            }
        }
    }
}
