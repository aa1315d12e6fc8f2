public import ArgumentParser

/// `herald`: Apple's push notification system on Linux, from the command line.
public struct HeraldCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Apple's push notification system on Linux: a provider, a local APNs and simulated devices.",
        subcommands: [
            GatewayCommand.self, ServeCommand.self, DeviceCommand.self, PayloadCommand.self, SendCommand.self,
            UpCommand.self,
        ]
    )

    public init() {}
}
