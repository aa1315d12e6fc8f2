import APNSCore
import ArgumentParser
import Foundation
import HeraldConsole

/// `herald status`: what herald runs from this folder, where, and how it is doing.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what herald runs from this folder and where: local APNs, provider (queue, apps, devices).")

    @OptionGroup(title: "A provider that runs elsewhere (its own --data folder, another machine)")
    var provider: ProviderOptions

    func run() async throws {
        let io = CommandIO.current.terminalSafe
        if provider.providerURL != nil {
            let (url, token) = try provider.provider()
            io.write("provider     \(url)/v1   \(await Self.providerSummary(url: url, token: token))\n")
            return
        }
        let found = ServiceOptions.running()
        guard !found.isEmpty else {
            io.write(
                "nothing runs from here (no running.json in \(ServiceOptions.folders.joined(separator: ", ")))\n"
                    + "start one: herald up; or name a provider that runs elsewhere: --provider URL "
                    + "--provider-token-file FILE (or HERALD_PROVIDER, a profile)\n")
            return
        }
        for (folder, file) in found {
            guard file.isAlive else {
                io.write("\(file.command) (pid \(file.pid)) in \(folder): not running (stopped without cleaning up)\n")
                continue
            }
            let since = file.started.formatted(date: .abbreviated, time: .standard)
            io.write("\(file.command) (pid \(file.pid), since \(since)) in \(folder)\n")
            if let gateway = file.gateway {
                io.write("  local APNs   \(gateway.url)   (CA \(gateway.caFile))\n")
            }
            if let provider = file.provider {
                io.write("  provider     \(provider.url)/v1   \(await Self.providerSummary(provider))\n")
            }
            if let device = file.deviceAPI {
                io.write("  device API   \(device)/notifications\n")
            }
        }
    }

    /// The provider's queue depth and, per app, its devices.
    private static func providerSummary(_ provider: RunningFile.Provider) async -> String {
        guard let tokenFile = provider.adminTokenFile,
            let token = try? String(contentsOfFile: tokenFile, encoding: .utf8)
        else { return "(admin token not readable)" }
        return await providerSummary(url: provider.url, token: token.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The queue depth and, per app, the devices of the provider at `url`.
    private static func providerSummary(url: String, token: String) async -> String {
        guard let client = try? ConsoleHTTPClient(caPEM: nil) else { return "" }
        defer { Task { await client.shutdown() } }
        let call = ServiceCall(client: client, base: url, token: token)
        do {
            let health = try await call.get("/healthz")
            var parts = ["queue depth \(health["queueDepth"]?.string ?? "?")"]
            for app in try await call.get("/v1/apps").array ?? [] {
                guard let id = app["id"]?.string else { continue }
                let devices = try await call.get("/v1/devices?app=\(id)&active=true&limit=1000").array?.count ?? 0
                parts.append(
                    "app \(app["name"]?.string ?? id) (\(app["bundleID"]?.string ?? "")): "
                        + "\(devices == 1000 ? "1000+" : String(devices)) active device(s)")
            }
            return parts.joined(separator: "; ")
        } catch let failure as CommandFailure {
            return "(\(failure.message))"
        } catch {
            return "(\(error))"
        }
    }
}
