import APNSClient
import APNSCore
import ArgumentParser
import Foundation

/// `herald channels`: manage an app's broadcast channels on Apple's channel management API or the local gateway's.
struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract: "Create, list, read and delete an app's broadcast channels (Live Activities, iOS 18+).",
        discussion: """
            Requests go to Apple's channel management host for --environment (api-manage-broadcast.sandbox.push.\
            apple.com:2195, or :2196 in production), or to --url (the local gateway's management port, \
            https://127.0.0.1:2195). Send on a channel with `herald send --channel ID`.
            """,
        subcommands: [Create.self, List.self, Read.self, Delete.self]
    )

    /// The options every subcommand shares.
    struct Common: ParsableArguments {
        @Option(help: "The app's bundle ID.")
        var topic: String

        @OptionGroup(title: "Target and credentials")
        var target: SendTargetOptions

        @Flag(name: .customLong("print-curl"), help: "Print the equivalent curl command instead of sending.")
        var printCurl = false

        @OptionGroup var logging: LoggingOptions

        /// A client for the chosen management endpoint.
        func client() throws -> APNSChannelClient {
            var endpoint = try target.endpoint()
            if target.url == nil {
                let environment: APNSEnvironment =
                    endpoint.host == APNSEndpoint.production.host ? .production : .development
                let trust = endpoint.additionalTrustRootsPEM
                endpoint = APNSChannelClient.endpoint(for: environment)
                endpoint.additionalTrustRootsPEM = trust
            }
            return try APNSChannelClient(
                endpoint: endpoint, authentication: try target.authentication(),
                logger: logging.logger("herald-channels"))
        }

        /// Runs `body` with a client, then closes it; an APNs rejection is printed and exits 1.
        func run(_ body: (APNSChannelClient) async throws -> Void) async throws {
            let client = try client()
            do {
                try await body(client)
            } catch let rejection as APNSRejection {
                await client.shutdown()
                CommandIO.current.writeError("error: \(rejection)\n")
                throw ExitCode(1)
            }
            await client.shutdown()
        }

        /// Prints the curl command for a request and says whether it did.
        func printedCurl(
            _ client: APNSChannelClient, method: String, allChannels: Bool = false, channelID: APNSChannelID? = nil,
            storagePolicy: APNSChannelStoragePolicy? = nil
        ) -> Bool {
            guard printCurl else { return false }
            CommandIO.current.write(
                client.curlCommand(
                    method: method, bundleID: topic, allChannels: allChannels, channelID: channelID,
                    storagePolicy: storagePolicy, caFile: target.caFile) + "\n")
            return true
        }
    }

    /// `herald channels create`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a channel; APNs answers its ID.")

        @OptionGroup var common: Common

        @Option(
            name: .customLong("storage-policy"),
            help: "0: No Message Stored (higher budget); 1: Most Recent Message Stored (kept up to 8 hours).")
        var storagePolicy = 0

        func run() async throws {
            guard let policy = APNSChannelStoragePolicy(rawValue: storagePolicy) else {
                throw UsageError("--storage-policy is 0 (No Message Stored) or 1 (Most Recent Message Stored)")
            }
            try await common.run { client in
                if common.printedCurl(client, method: "POST", storagePolicy: policy) { return }
                let made = try await client.create(bundleID: common.topic, storagePolicy: policy)
                CommandIO.current.write(
                    "\(made.value)\n  channel for \(common.topic), storage policy \(policy); apns-request-id "
                        + "\(made.requestID)\n")
            }
        }
    }

    /// `herald channels list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The IDs of every channel of the app.")

        @OptionGroup var common: Common

        func run() async throws {
            try await common.run { client in
                if common.printedCurl(client, method: "GET", allChannels: true) { return }
                let listed = try await client.list(bundleID: common.topic)
                CommandIO.current.write(listed.value.map { "\($0)\n" }.joined())
                CommandIO.current.writeError("\(listed.value.count) channel(s) for \(common.topic)\n")
            }
        }
    }

    /// `herald channels read`.
    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A channel's storage policy and push type.")

        @OptionGroup var common: Common

        @OptionGroup var channel: ChannelOption

        func run() async throws {
            let id = try channel.id()
            try await common.run { client in
                if common.printedCurl(client, method: "GET", channelID: id) { return }
                let read = try await client.read(bundleID: common.topic, channelID: id)
                CommandIO.current.write(
                    "\(id): message-storage-policy \(read.value.storagePolicy), push-type "
                        + "\(APNSChannelConfiguration.pushType)\n")
            }
        }
    }

    /// `herald channels delete`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel; its ID is never used again.")

        @OptionGroup var common: Common

        @OptionGroup var channel: ChannelOption

        func run() async throws {
            let id = try channel.id()
            try await common.run { client in
                if common.printedCurl(client, method: "DELETE", channelID: id) { return }
                try await client.delete(bundleID: common.topic, channelID: id)
                CommandIO.current.write("deleted \(id)\n")
            }
        }
    }

    /// `--channel ID`, for the subcommands that name one channel.
    struct ChannelOption: ParsableArguments {
        @Option(help: "The channel's ID.")
        var channel: String

        /// The channel ID given.
        func id() throws(UsageError) -> APNSChannelID {
            guard let id = APNSChannelID(rawValue: channel) else {
                throw UsageError("--channel: \(APNSChannelID.problem(with: channel) ?? "not a channel ID")")
            }
            return id
        }
    }
}
