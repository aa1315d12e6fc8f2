import APNSCore
import ArgumentParser
import Foundation
import HeraldConsole
import ProviderStorage
import PushProvider

/// `herald why ID`: what became of a notification on each device, in one sentence with the next step.
struct WhyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "why",
        abstract: "Say what became of a notification on each device, and what to do about it.",
        discussion: """
            ID is an apns-id (one device), a notification id from the provider (every device: the breakdown by \
            verdict), or an apns-unique-id (the local APNs knows those). With a local APNs running from this folder \
            (herald up), its log adds what happened between APNs and the device: stored while offline, replaced, \
            expired. Exit status 1 when the ID is unknown.
            """)

    @OptionGroup var services: ServiceOptions

    @Argument(help: "An apns-id, a notification id or an apns-unique-id.")
    var id: String

    @Option(help: "The app's ID (default: every app of the provider is asked).")
    var app: String?

    @Option(help: "For a notification id: list the devices with this verdict (as the breakdown names them).")
    var verdict: String?

    @Option(help: "For a notification id: the most devices listed (1 to 1000).")
    var limit = 20

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard UUID(uuidString: id) != nil else {
            throw ValidationError(
                "'\(id)' is not an id Herald knows: give an apns-id, a notification id or an apns-unique-id (UUIDs)")
        }
        guard (1...1000).contains(limit) else { throw ValidationError("--limit is 1 to 1000; got \(limit)") }
    }

    func run() async throws {
        let lookup = try await WhyLookup(services: services, app: app)
        do {
            try await report(with: lookup)
            await lookup.shutdown()
        } catch {
            await lookup.shutdown()
            throw error
        }
    }

    private func report(with lookup: WhyLookup) async throws {
        let io = CommandIO.current.terminalSafe
        switch try await lookup.find(id) {
        case .delivery(let trace, let verdict):
            if json {
                io.write(String(decoding: try WhyRendering.json(trace, verdict), as: UTF8.self) + "\n")
            } else {
                io.write(WhyRendering.text(trace, verdict))
            }
        case .gatewayOnly(let apnsID, let token, let verdict):
            if json {
                io.write(String(decoding: try WhyRendering.json(verdict), as: UTF8.self) + "\n")
            } else {
                io.write(WhyRendering.text(apnsID: apnsID, token: token, verdict))
            }
        case .notification(let breakdown, let page):
            var listed: [DeliveryTrace]?
            if let verdict { listed = try await lookup.devices(of: id, verdict: verdict, limit: limit) }
            if json {
                io.write(String(decoding: try WhyRendering.json(breakdown, listed ?? page), as: UTF8.self) + "\n")
            } else {
                io.write(WhyRendering.text(breakdown, devices: listed ?? page, filtered: verdict))
            }
        case .pruned(let message):
            if json {
                let object = JSONValue.object(JSONObject([("verdict", "pruned"), ("sentence", .string(message))]))
                io.write(String(decoding: object.encoded(), as: UTF8.self) + "\n")
            } else {
                io.write("pruned: \(message)\n")
            }
        case .unknown(let searched):
            throw CommandFailure(
                "no notification with id \(id): \(searched)",
                next: "give an apns-id (herald send prints it), a notification id (POST /v1/notifications answers "
                    + "it) or an apns-unique-id (the local APNs' answer header)")
        }
    }
}
