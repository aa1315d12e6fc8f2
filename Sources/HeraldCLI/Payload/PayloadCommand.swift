import ArgumentParser

/// `herald payload`: work with notification payloads.
struct PayloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "payload",
        abstract: "Work with notification payloads.",
        subcommands: [PayloadLintCommand.self]
    )
}
