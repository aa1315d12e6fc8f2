public import APNSCore
import Foundation
public import Logging
import NIOCore

/// A client for APNs' channel management API: create, read, delete and list an app's broadcast
/// channels on `api-manage-broadcast(.sandbox).push.apple.com` (ports 2196 and 2195), or on `herald gateway`'s
/// management port. It keeps its own HTTP/2 connection (an ``APNSPushClient`` of its own), apart from the client that
/// sends the broadcasts.
///
/// ```swift
/// let channels = try APNSChannelClient(endpoint: APNSChannelClient.endpoint(for: .development),
///                                      authentication: .token(signer))
/// let made = try await channels.create(bundleID: "com.example.app", storagePolicy: .mostRecentMessageStored)
/// // send broadcasts with APNSNotification(broadcast: .init(bundleID:headers: .init(channelID: made.value)), ...)
/// ```
public final class APNSChannelClient: Sendable {
    /// An answer: what was asked for, and the `apns-request-id` APNs answered with.
    public struct Answer<Value: Sendable>: Sendable {
        public let value: Value
        public let requestID: String
    }

    /// Where requests go.
    public let endpoint: APNSEndpoint
    private let authentication: APNSClientAuthentication
    private let client: APNSPushClient

    /// Apple's channel management endpoint for an environment.
    public static func endpoint(for environment: APNSEnvironment) -> APNSEndpoint {
        APNSEndpoint(host: environment.channelManagementHost, port: environment.channelManagementPort)
    }

    /// A client; it connects on first use.
    ///
    /// - Parameters:
    ///   - endpoint: Apple's management host (``endpoint(for:)``) or the local gateway's management port.
    ///   - authentication: a provider token signer or a client certificate, as for device pushes.
    ///   - timeout: how long one request may take, retries included.
    ///   - logger: where the client says what it does (see ``APNSPushClient/Configuration/logger``).
    /// - Throws: ``APNSClientError`` when TLS cannot be set up (an unreadable CA).
    public init(
        endpoint: APNSEndpoint, authentication: APNSClientAuthentication, timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "herald-apns-client")
    ) throws(APNSClientError) {
        self.endpoint = endpoint
        self.authentication = authentication
        var configuration = APNSPushClient.Configuration(endpoint: endpoint, authentication: authentication)
        configuration.maximumConnections = 1
        configuration.timeout = timeout
        configuration.logger = logger
        client = try APNSPushClient(configuration: configuration)
    }

    /// Makes a channel: APNs chooses its ID.
    ///
    /// - Throws: ``APNSRejection`` with APNs' status and reason (`CannotCreateChannelConfig` past 10,000 channels,
    ///   `FeatureNotEnabled`, ...), or with no status when APNs never answered.
    public func create(
        bundleID: String, storagePolicy: APNSChannelStoragePolicy, requestID: APNSMessageID? = nil
    ) async throws(APNSRejection) -> Answer<APNSChannelID> {
        let body = Array(APNSChannelConfiguration(storagePolicy: storagePolicy).json.encoded())
        let reply = try await send("POST", bundleID: bundleID, path: "channels", requestID: requestID, body: body)
        guard let id = reply.channelID.flatMap(APNSChannelID.init(rawValue:)) else {
            throw invalid("the answer to a channel creation has no apns-channel-id", reply)
        }
        return Answer(value: id, requestID: reply.apnsID)
    }

    /// Reads a channel's configuration.
    ///
    /// - Throws: ``APNSRejection`` (`ChannelNotRegistered` for a channel that does not exist or was deleted).
    public func read(
        bundleID: String, channelID: APNSChannelID, requestID: APNSMessageID? = nil
    ) async throws(APNSRejection) -> Answer<APNSChannelConfiguration> {
        let reply = try await send(
            "GET", bundleID: bundleID, path: "channels", channelID: channelID, requestID: requestID)
        do {
            return Answer(value: try APNSChannelConfiguration(validating: reply.body ?? []), requestID: reply.apnsID)
        } catch {
            throw invalid("the channel's configuration could not be read: \(error.message)", reply)
        }
    }

    /// Deletes a channel; its ID is never made again.
    ///
    /// - Throws: ``APNSRejection`` (`ChannelNotRegistered`, ...).
    @discardableResult
    public func delete(
        bundleID: String, channelID: APNSChannelID, requestID: APNSMessageID? = nil
    ) async throws(APNSRejection) -> Answer<Void> {
        let reply = try await send(
            "DELETE", bundleID: bundleID, path: "channels", channelID: channelID, requestID: requestID)
        return Answer(value: (), requestID: reply.apnsID)
    }

    /// The IDs of every channel the app has in this environment.
    ///
    /// - Throws: ``APNSRejection``.
    public func list(bundleID: String, requestID: APNSMessageID? = nil) async throws(APNSRejection)
        -> Answer<[APNSChannelID]>
    {
        let reply = try await send("GET", bundleID: bundleID, path: "all-channels", requestID: requestID)
        guard case .array(let items)? = (try? JSONValue(parsing: Data(reply.body ?? [])))?["channels"] else {
            throw invalid(#"the list of channels is not {"channels": [...]}"#, reply)
        }
        let ids = items.compactMap { $0.string.flatMap(APNSChannelID.init(rawValue:)) }
        return Answer(value: ids, requestID: reply.apnsID)
    }

    /// Closes the connection once its requests are answered.
    public func shutdown() async {
        await client.shutdown()
    }

    /// The `curl` command that makes the same request (the token is `$JWT`), for `--print-curl`.
    public func curlCommand(
        method: String, bundleID: String, allChannels: Bool = false, channelID: APNSChannelID? = nil,
        storagePolicy: APNSChannelStoragePolicy? = nil, caFile: String? = nil
    ) -> String {
        var parts = ["curl --http2", "-X \(method)"]
        if let caFile { parts.append("--cacert '\(caFile)'") }
        if case .token = authentication { parts.append("-H \"authorization: bearer $JWT\"") }
        if let channelID { parts.append("-H 'apns-channel-id: \(channelID)'") }
        if let storagePolicy {
            let body = String(
                decoding: APNSChannelConfiguration(storagePolicy: storagePolicy).json.encoded(), as: UTF8.self)
            parts.append("--data '\(body)'")
        }
        parts.append("\(endpoint)/1/apps/\(bundleID)/\(allChannels ? "all-channels" : "channels")")
        return parts.joined(separator: " \\\n  ")
    }

    private func send(
        _ method: String, bundleID: String, path: String, channelID: APNSChannelID? = nil,
        requestID: APNSMessageID?, body: [UInt8] = []
    ) async throws(APNSRejection) -> APNSAcceptance {
        if let problem = APNSTopic.problem(with: bundleID) {
            throw APNSRejection(status: nil, reason: .badPath, message: "bundle ID '\(bundleID)': \(problem)")
        }
        var fields: [ChannelRequest.Field] = []
        if let requestID { fields.append(.init(name: APNSBroadcastHeaders.Name.requestID, value: requestID.rawValue)) }
        if let channelID { fields.append(.init(name: APNSBroadcastHeaders.Name.channelID, value: channelID.rawValue)) }
        // The channel request says where it goes; the device target is not read.
        var notification = APNSNotification(
            deviceToken: "", headers: APNSRequestHeaders(), payload: ByteBuffer(bytes: body))
        notification.channelRequest = ChannelRequest(
            method: method, path: "/1/apps/\(bundleID)/\(path)", fields: fields)
        let result: APNSResult
        do {
            result = try await client.send(notification)
        } catch {
            throw APNSRejection(status: nil, reason: .invalidProviderToken, message: error.message)
        }
        switch result {
        case .accepted(let acceptance): return acceptance
        case .rejected(let rejection): throw rejection
        }
    }

    private func invalid(_ message: String, _ reply: APNSAcceptance) -> APNSRejection {
        APNSRejection(status: reply.status, reason: .invalidResponse, apnsID: reply.apnsID, message: message)
    }
}
