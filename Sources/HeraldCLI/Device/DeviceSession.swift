import DeviceSimulator
import Foundation
import ServiceLifecycle

/// A running device as a command runs it: the device, its JSON API, its events printed, and the terminal. A service
/// of the command's group (``CommandServices``): it ends when the group shuts down or the terminal's `quit`.
struct DeviceSession: Service {
    let configuration: SimulatedDevice.Configuration
    let apiHost: String
    let apiPort: Int
    /// The flag that chooses the API's port, for the message when it is in use.
    var apiPortOption = "--api-port"
    let interactive: Bool
    /// Extra lines printed after the banner (`herald up`'s example command).
    var epilogue: @Sendable (SimulatedDevice) -> String = { _ in "" }
    /// Called with the JSON API's port once it listens.
    var onAPIListening: @Sendable (Int) -> Void = { _ in }
    /// Shuts the command's group down after the terminal's `quit`.
    var shutdown: CommandShutdown?
    /// The terminal's lines (standard input's unless a test gives its own).
    var terminalInput: @Sendable () -> AsyncStream<String> = DeviceTerminal.standardInput

    /// Runs until the group shuts down (SIGINT, SIGTERM) or `quit`.
    func run() async throws {
        let io = CommandIO.current
        let device: SimulatedDevice
        do {
            device = try await SimulatedDevice.install(configuration)
        } catch {
            throw CommandFailure(error.message)
        }
        let events = device.events()
        do {
            try await device.connect()
        } catch {
            throw CommandFailure(
                error.message,
                next: "is herald gateway or herald up running? Start it, or point --gateway and --ca-file at it")
        }
        let printing = Task {
            for await event in events { io.write(DeviceEventLine(event).text + "\n") }
        }
        defer { printing.cancel() }
        do {
            try await serve(device, io: io)
        } catch {
            await device.stop()
            throw error
        }
        await device.stop()
    }

    /// Serves the device's JSON API and runs the terminal until the group shuts down; `quit` asks the group to. The
    /// API is a child of this service, so the group's graceful shutdown reaches it: it stops taking connections and
    /// ends with its last one.
    private func serve(_ device: SimulatedDevice, io: CommandIO) async throws {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            let (ports, listening) = AsyncStream.makeStream(of: Int.self)
            tasks.addTask {
                defer { listening.finish() }
                do {
                    try await DeviceAPI(device: device).run(host: apiHost, port: apiPort) { listening.yield($0) }
                } catch {
                    throw CommandFailure.listening(
                        error, what: "the device's JSON API", host: apiHost, port: apiPort, option: apiPortOption)
                        ?? error
                }
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await tasks.waitForAll()
                throw CommandFailure("the device's JSON API stopped before it listened")
            }
            onAPIListening(port)
            io.write(
                DeviceBanner(device: device, apiHost: apiHost, apiPort: port, interactive: interactive).text
                    + epilogue(device))
            if interactive {
                let terminal = DeviceTerminal(device: device, io: io, input: terminalInput)
                let quit = await cancelWhenGracefulShutdown { await terminal.run() }
                if quit, await shutdown?.request() != true { tasks.cancelAll() }
            }
            try await tasks.waitForAll()
        }
    }
}

/// What `herald device` prints once connected.
struct DeviceBanner {
    let device: SimulatedDevice
    let apiHost: String
    let apiPort: Int
    let interactive: Bool

    var text: String {
        let configuration = device.configuration
        var lines = ["herald device: connected to \(configuration.gatewayHost):\(configuration.gatewayPort)"]
        for app in device.installedApps {
            lines.append("  \(app.bundleID) (\(app.environment)): token \(app.token ?? "none")")
        }
        lines.append("JSON API: http://\(apiHost):\(apiPort)/notifications (docs/devices.md)")
        if interactive { lines.append("type 'help' for the terminal's commands") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// One event as a line of the device's output.
struct DeviceEventLine {
    let event: DeviceEvent

    init(_ event: DeviceEvent) {
        self.event = event
    }

    var text: String {
        let app = event.bundleID.map { "[\($0)] " } ?? ""
        switch event.kind {
        case .registered: return "\(app)registered, token \(event.token ?? "")"
        case .delivered: return "\(app)delivered \(event.notificationID ?? event.apnsID ?? "")"
        case .displayed: return "\(app)shown \(event.notificationID ?? "")"
        case .response:
            let text = event.text.map { " \"\($0)\"" } ?? ""
            return "\(app)response \(event.action ?? "")\(text) to \(event.notificationID ?? "")"
        case .log: return "\(app)\(event.message ?? "")"
        case .outcome:
            let detail = event.message.map { ": \($0)" } ?? ""
            return "\(app)\(event.outcome ?? "outcome") \(event.notificationID ?? event.apnsID ?? "")\(detail)"
        case .activity:
            let id = event.notificationID.map { "activity \($0) " } ?? ""
            return "\(app)\(id)\(event.message ?? "")"
        }
    }
}
