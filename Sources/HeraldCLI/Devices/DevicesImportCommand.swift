import APNSCore
import ArgumentParser
import Foundation
import HeraldConsole

extension DevicesCommand {
    /// `herald devices import FILE`: registers a file of devices at once (moving from another push service, or
    /// loading a test audience), checked whole before anything is sent.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a file of devices: one token, or one JSON registration, per line.",
            discussion: """
                Each line is a device token (hex), or a JSON object with a registration's fields: \
                {"token": "…", "userID": "u1", "tags": ["beta"], "timeZone": "Asia/Shanghai", "locale": "zh_CN"}. \
                Blank lines are skipped; the last line ends with a newline. The whole file is checked first (each \
                line as the provider checks it, and no token twice); nothing is sent while any line is wrong. Up to \
                10,000,000 devices per import. A device already registered is updated with the fields given.
                """)

        @OptionGroup var services: ServiceOptions

        @Argument(help: "The file of devices.")
        var file: String

        @Option(help: "The app's ID (default: the provider's only app).")
        var app: String?

        @Option(help: "Devices sent per request (1 to 100000).")
        var batch = 100_000

        @Option(help: "Start at this line, after an import that stopped part way (it says which).")
        var fromLine = 1

        @Option(
            help:
                "How long, in seconds, a batch is sent again while the provider cannot take it (restarting, its database down)."
        )
        var waitForProvider = 120

        func run() async throws {
            let io = CommandIO.current.terminalSafe
            guard (1...100_000).contains(batch) else { throw UsageError("--batch is 1 to 100000; got \(batch)") }
            guard fromLine >= 1 else { throw UsageError("--from-line is 1 or more; got \(fromLine)") }
            guard (0...86_400).contains(waitForProvider) else {
                throw UsageError("--wait-for-provider is 0 to 86400 seconds; got \(waitForProvider)")
            }
            let (url, token) = try services.provider()
            let client = try ConsoleHTTPClient(caPEM: nil)
            do {
                try await run(ServiceCall(client: client, base: url, token: token), io: io)
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
        }

        private func run(_ call: ServiceCall, io: CommandIO) async throws {
            let appID = try await DevicesCommand.appID(app, call: call)
            let stored = try await call.get("/v1/apps/\(DevicesCommand.escape(appID))")
            guard let bundleID = stored["bundleID"]?.string, let environment = stored["environment"]?.string else {
                throw CommandFailure("the provider's app \(appID) has no bundle ID or environment")
            }
            let began = ContinuousClock.now
            let importFile = DeviceImportFile(
                path: file, bundleID: bundleID, environment: environment, firstLine: fromLine)
            let check = try importFile.check()
            if check.problemCount > 0 {
                for problem in check.problems { io.writeError("\(file): \(problem)\n") }
                if check.problemCount > check.problems.count {
                    io.writeError("… and \((check.problemCount - check.problems.count).formatted()) more\n")
                }
                throw CommandFailure(
                    "\(file) has \(check.problemCount.formatted()) problem(s); nothing was imported",
                    next: "fix the lines named, then run the import again")
            }
            guard check.devices > 0 else {
                throw CommandFailure(
                    "\(file) has no devices" + (fromLine > 1 ? " from line \(fromLine) on" : ""),
                    next: "give one device token per line, or one JSON registration per line")
            }
            io.write(
                "\(file): \(check.devices.formatted()) devices checked; importing into app \(appID) (\(bundleID))\n")
            let upload = DeviceImportUpload(
                file: importFile, call: call, appID: appID, batchSize: batch, patience: .seconds(waitForProvider),
                io: io)
            let summary = try await upload.run(total: check.devices)
            let seconds = DeviceImportUpload.seconds(ContinuousClock.now - began)
            io.write(
                "imported \(summary.imported.formatted()) devices: \(summary.created.formatted()) new, "
                    + "\((summary.imported - summary.created).formatted()) already registered (updated), in "
                    + "\(String(format: "%.1f", seconds)) s "
                    + "(\(Int(Double(summary.imported) / max(seconds, 0.001)).formatted()) a second)\n")
        }
    }
}
