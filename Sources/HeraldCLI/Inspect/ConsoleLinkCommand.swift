import APNSCore
import ArgumentParser
import Foundation
import HeraldConsole
import NIOHTTP1

/// `herald console-link`: a new one-time sign-in link for the console of a running `herald up` or `herald serve`.
struct ConsoleLinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console-link",
        abstract: "Print a new one-time sign-in link for the running console (the first one is spent or lapsed).",
        discussion: """
            The link signs a browser in once, within 15 minutes, with the provider's admin token (found the way \
            herald status finds it, or --provider and --provider-token-file).
            """)

    @OptionGroup var services: ServiceOptions

    func run() async throws {
        let (url, token) = try services.provider()
        let client = try ConsoleHTTPClient(caPEM: nil)
        let answer: JSONValue
        do {
            answer = try await ServiceCall(client: client, base: url, token: token).call(
                .POST, "/console/api/login-link")
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
        guard let path = answer["path"]?.string else {
            throw CommandFailure("\(url) answered without a link", next: "is that a herald provider with its console?")
        }
        CommandIO.current.write("\(url)\(path) (signs in once, within 15 minutes)\n")
    }
}
