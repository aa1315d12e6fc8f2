import APNSClient
import APNSCore
import ArgumentParser
import Foundation

/// Where `herald send` sends and how it authenticates.
struct SendTargetOptions: ParsableArguments {
    @Option(name: .customLong("auth-key"), help: "Token authentication: TEAMID:KEYID:FILE (FILE is the .p8 key).")
    var authKey: String?

    @Option(help: "Certificate authentication: a .p12 file, or a PEM file with the certificate (and its key).")
    var cert: String?

    @Option(name: .customLong("cert-password"), help: "The password of the .p12 file or of the PEM key.")
    var certPassword: String?

    @Option(name: .customLong("cert-key"), help: "The PEM private key, when it is not in the --cert file.")
    var certKey: String?

    @Option(help: "Apple's APNs to send to: sandbox (development) or production. Default: sandbox.")
    var environment: String?

    @Option(help: "Any APNs-compatible server instead, as https://host:port (the local gateway).")
    var url: String?

    @Option(name: .customLong("ca-file"), help: "A PEM CA to trust besides the system's (the gateway's ca.pem).")
    var caFile: String?

    @Option(
        name: .customLong("connect-to"),
        help: """
            Open TCP to HOST:PORT instead of the server's own address, keeping its name for TLS and :authority (like \
            curl --connect-to): a proxy, or Apple's names tried against the local gateway.
            """)
    var connectTo: String?

    /// The endpoint chosen by `--url`/`--ca-file` or `--environment`.
    func endpoint() throws(UsageError) -> APNSEndpoint {
        var caPEM: String?
        if let caFile {
            guard let text = try? String(contentsOfFile: caFile, encoding: .utf8) else {
                throw UsageError("--ca-file: cannot read \(caFile)")
            }
            caPEM = text
        }
        if let connectTo {
            guard let colon = connectTo.lastIndex(of: ":"), colon != connectTo.startIndex,
                let port = Int(connectTo[connectTo.index(after: colon)...]), (1...65535).contains(port)
            else {
                throw UsageError("--connect-to is HOST:PORT (port 1 to 65535), e.g. 127.0.0.1:2197; got '\(connectTo)'")
            }
        }
        if let url {
            guard environment == nil else { throw UsageError("give --url or --environment, not both") }
            do {
                var endpoint = try APNSEndpoint(url: url, additionalTrustRootsPEM: caPEM)
                endpoint.connectTo = connectTo
                return endpoint
            } catch {
                throw UsageError("--url: \(error.message)")
            }
        }
        var endpoint: APNSEndpoint
        switch environment?.lowercased() ?? "sandbox" {
        case "sandbox", "development": endpoint = .sandbox
        case "production": endpoint = .production
        default: throw UsageError("--environment is sandbox or production, not '\(environment ?? "")'")
        }
        endpoint.additionalTrustRootsPEM = caPEM
        endpoint.connectTo = connectTo
        return endpoint
    }

    /// The credentials from `--auth-key` or `--cert`.
    func authentication() throws(UsageError) -> APNSClientAuthentication {
        switch (authKey, cert) {
        case (let authKey?, nil):
            let key = try AuthKeyOption(parsing: authKey)
            guard key.topics == nil else { throw UsageError("--auth-key is TEAMID:KEYID:FILE for herald send") }
            do {
                return .token(try APNSProviderTokenSigner(privateKeyPEM: key.pem, keyID: key.keyID, teamID: key.teamID))
            } catch {
                throw UsageError("--auth-key: \(error.message)")
            }
        case (nil, let cert?):
            do {
                let lowered = cert.lowercased()
                if lowered.hasSuffix(".p12") || lowered.hasSuffix(".pfx") {
                    return .certificate(try .pkcs12(path: cert, passphrase: certPassword))
                }
                return .certificate(try .pem(certificatePath: cert, keyPath: certKey, passphrase: certPassword))
            } catch {
                throw UsageError("--cert: \(error.message)")
            }
        case (nil, nil):
            throw UsageError("say how to authenticate: --auth-key TEAMID:KEYID:FILE or --cert FILE")
        case (.some, .some):
            throw UsageError("give --auth-key or --cert, not both")
        }
    }
}
