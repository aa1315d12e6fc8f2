package import ArgumentParser
import HeraldSupport

/// `herald`: Apple's push notification system on Linux, from the command line.
package struct HeraldCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Apple's push notification system on Linux: a provider, a local APNs and simulated devices.",
        version: "herald \(HeraldCommand.version)",
        subcommands: [
            UpCommand.self, SendCommand.self, StatusCommand.self, DevicesCommand.self, LogCommand.self,
            PayloadCommand.self, GatewayCommand.self, ServeCommand.self, DeviceCommand.self, ChannelsCommand.self,
            KeysCommand.self, DoctorCommand.self, ConsoleLinkCommand.self, WhyCommand.self, AppsCommand.self,
            NotificationsCommand.self,
        ]
    )

    /// Herald's version, as `herald --version` prints it.
    package static let version = HeraldVersion.current

    package init() {}
}
