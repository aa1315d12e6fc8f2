import ArgumentParser
import HeraldSupport
import PushProvider

/// The limits on the publishable key (docs/trust.md) and the proxies trusted to name the client, for `herald serve`.
struct PublicLimitOptions: ParsableArguments {
    @Option(
        name: .customLong("public-registrations-per-address"),
        help: "Registrations with the publishable key a minute from one client address (0: no limit).")
    var registrationsPerAddress = PublicLimits().registrationsPerAddress.perMinute

    @Option(
        name: .customLong("public-registrations-per-app"),
        help: "Registrations with the publishable key a minute for one app, every address together (0: no limit).")
    var registrationsPerApp = PublicLimits().registrationsPerApp.perMinute

    @Option(
        name: .customLong("public-reports-per-address"),
        help: "Receipts (POST /v1/feedback) with the publishable key a minute from one client address (0: no limit).")
    var reportsPerAddress = PublicLimits().reportsPerAddress.perMinute

    @Option(
        name: .customLong("public-reads-per-address"),
        help: "Other requests with the publishable key (categories) a minute from one client address (0: no limit).")
    var readsPerAddress = PublicLimits().readsPerAddress.perMinute

    @Option(
        name: .customLong("trusted-proxy"),
        help:
            "A reverse proxy (address or network, such as 10.0.0.0/8) whose X-Forwarded-For names the client. Repeatable."
    )
    var trustedProxies: [String] = []

    func validate() throws {
        for (option, value) in [
            ("--public-registrations-per-address", registrationsPerAddress),
            ("--public-registrations-per-app", registrationsPerApp),
            ("--public-reports-per-address", reportsPerAddress), ("--public-reads-per-address", readsPerAddress),
        ] where !(0...100_000_000).contains(value) {
            throw ValidationError("\(option) is 0 (no limit) to 100000000 a minute; got \(value)")
        }
        _ = try proxies()
    }

    /// The limits the options give; a limit's burst is a minute's worth, as the defaults' are (receipts keep theirs
    /// when the rate is not changed).
    var limits: PublicLimits {
        var limits = PublicLimits()
        limits.registrationsPerAddress = .init(perMinute: registrationsPerAddress)
        limits.registrationsPerApp = .init(perMinute: registrationsPerApp)
        if reportsPerAddress != limits.reportsPerAddress.perMinute {
            limits.reportsPerAddress = .init(perMinute: reportsPerAddress)
        }
        limits.readsPerAddress = .init(perMinute: readsPerAddress)
        return limits
    }

    /// The networks of `--trusted-proxy`.
    func proxies() throws -> TrustedProxies {
        var networks: [TrustedProxies.Network] = []
        for text in trustedProxies {
            do {
                networks.append(try TrustedProxies.Network(parsing: text))
            } catch {
                throw ValidationError("--trusted-proxy \(error.description)")
            }
        }
        return TrustedProxies(networks)
    }
}
