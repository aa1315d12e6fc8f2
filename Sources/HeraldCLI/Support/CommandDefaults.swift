import APNSCore
import ArgumentParser
import Foundation

/// Values for a command's options that the command line left out, from (first wins) the environment
/// (`HERALD_AUTH_KEY` for `--auth-key`, `HERALD_JSON=1` for the flag `--json`) and the chosen profile of the
/// configuration file. The command line always wins; a setting the command has no option for is ignored.
///
/// The configuration file is `HERALD_CONFIG`, else `./herald.json`, else `~/.config/herald/config.json`:
///
/// ```json
/// {"profile": "local",
///  "profiles": {"local": {"url": "https://127.0.0.1:2197", "ca-file": ".herald/up/gateway/ca.pem", ...},
///               "sandbox": {"environment": "sandbox", "auth-key": "TEAMID:KEYID:AuthKey.p8", "topic": "..."}}}
/// ```
///
/// The profile is `--profile NAME` (anywhere on the line), else `HERALD_PROFILE`, else the file's `profile`. The
/// profile `up` is built in: what a `herald up` running from this folder listens on, with its signing key and app.
/// A key `COMMAND.OPTION` (`"channels.url"`) is for that command only and wins over `OPTION` there: channel
/// management has its own port.
struct CommandDefaults {
    /// A profile: option name (without `--`) to value.
    typealias Profile = [String: String]

    let environment: [String: String]
    let profiles: [String: Profile]
    let defaultProfile: String?
    /// Where the profiles were read, for messages.
    let source: String?

    /// The process's environment and configuration file.
    static func current() throws(UsageError) -> CommandDefaults {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"].map { "\($0)/.config/herald/config.json" }
        let candidates = [environment["HERALD_CONFIG"], "herald.json", home].compactMap { $0 }
        var profiles: [String: Profile] = ["up": UpProfile.current()].compactMapValues { $0 }
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            if let named = environment["HERALD_CONFIG"] { throw UsageError("HERALD_CONFIG: cannot read \(named)") }
            return CommandDefaults(environment: environment, profiles: profiles, defaultProfile: nil, source: nil)
        }
        let file = try ConfigurationFile.read(path)
        profiles.merge(file.profiles) { _, own in own }
        return CommandDefaults(
            environment: environment, profiles: profiles, defaultProfile: file.profile, source: path)
    }

    /// `arguments` with `--profile` taken out and every default the subcommand accepts appended.
    ///
    /// - Throws: ``UsageError`` when the profile named does not exist.
    func apply(to arguments: [String]) throws(UsageError) -> [String] {
        var arguments = arguments
        var chosen = environment["HERALD_PROFILE"] ?? defaultProfile
        var explicit = environment["HERALD_PROFILE"] != nil
        if let index = arguments.firstIndex(where: { $0 == "--profile" || $0.hasPrefix("--profile=") }) {
            if arguments[index] == "--profile" {
                guard index + 1 < arguments.count else { throw UsageError("--profile needs a name") }
                chosen = arguments[index + 1]
                arguments.removeSubrange(index...(index + 1))
            } else {
                chosen = String(arguments[index].dropFirst("--profile=".count))
                arguments.remove(at: index)
            }
            explicit = true
        }
        var profile: Profile = [:]
        if let chosen {
            guard let found = profiles[chosen] else {
                let known = profiles.keys.sorted().joined(separator: ", ")
                let hint = chosen == "up" ? " (it is there while herald up runs from this folder)" : ""
                throw UsageError(
                    "no profile '\(chosen)'\(hint); the profiles are: \(known.isEmpty ? "none" : known)"
                        + (source.map { " (from \($0))" } ?? ""))
            }
            profile = found
        }
        guard explicit || !profile.isEmpty || environment.keys.contains(where: { $0.hasPrefix("HERALD_") }) else {
            return arguments
        }
        let options = CommandOptions.of(arguments)
        let command = arguments.first { !$0.hasPrefix("-") }
        for option in options where !Self.given(option.name, in: arguments) {
            let key = "HERALD_" + option.name.uppercased().replacingOccurrences(of: "-", with: "_")
            if option.isFlag {
                if let value = environment[key], ["1", "true", "yes"].contains(value.lowercased()) {
                    arguments.append("--\(option.name)")
                }
            } else if let value = environment[key] ?? command.flatMap({ profile["\($0).\(option.name)"] })
                ?? profile[option.name]
            {
                arguments += ["--\(option.name)", value]
            }
        }
        return arguments
    }

    private static func given(_ name: String, in arguments: [String]) -> Bool {
        let flag = "--\(name)"
        return arguments.contains { $0 == flag || $0.hasPrefix(flag + "=") }
    }
}

/// The configuration file's form.
private struct ConfigurationFile: Decodable {
    var profile: String?
    var profiles: [String: [String: String]]

    static func read(_ path: String) throws(UsageError) -> ConfigurationFile {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read \(path)") }
        do {
            return try JSONDecoder().decode(ConfigurationFile.self, from: data)
        } catch {
            throw UsageError(
                "\(path) is not a herald configuration: {\"profile\": NAME?, \"profiles\": {NAME: {\"option\": "
                    + "\"value\", ...}}} with string values (\(error))")
        }
    }
}

/// The long options and flags of the subcommand a command line runs, read from the parser's own description.
struct CommandOptions {
    let name: String
    let isFlag: Bool

    /// The command tree as ArgumentParser describes it (`--experimental-dump-help`).
    static let tree: JSONValue? = (try? JSONValue(parsing: Data(HeraldCommand._dumpHelp().utf8)))?["command"]

    /// The options of the deepest subcommand `arguments` names, or of the default subcommand a group runs when it is
    /// named alone (`herald devices --limit 1` is `herald devices list --limit 1`).
    static func of(_ arguments: [String]) -> [CommandOptions] {
        var command = tree
        var type: any ParsableCommand.Type = HeraldCommand.self
        let subcommand = { (command: JSONValue?, name: String) in
            command?["subcommands"]?.array?.first { $0["commandName"]?.string == name }
        }
        let subtype = { (type: any ParsableCommand.Type, name: String) in
            type.configuration.subcommands.first { $0._commandName == name }
        }
        for word in arguments where !word.hasPrefix("-") {
            guard let next = subcommand(command, word), let nextType = subtype(type, word) else { break }
            (command, type) = (next, nextType)
        }
        while let name = type.configuration.defaultSubcommand?._commandName, let next = subcommand(command, name),
            let nextType = subtype(type, name)
        {
            (command, type) = (next, nextType)
        }
        let described = command?["arguments"]?.array ?? []
        return described.compactMap { argument in
            let kind = argument["kind"]?.string
            guard kind == "option" || kind == "flag",
                let names = argument["names"]?.array,
                let long = names.first(where: { $0["kind"]?.string == "long" })?["name"]?.string,
                !["help", "version", "generate-completion-script"].contains(long)
            else { return nil }
            return CommandOptions(name: long, isFlag: kind == "flag")
        }
    }
}
