import APNSCore
import ArgumentParser
import Foundation

/// How an app authenticates to APNs, as `herald apps create` and `update` take it: a `.p8` key or a certificate.
struct AppCredentialOptions: ParsableArguments {
    @Option(
        name: .customLong("auth-key"),
        help: "TEAMID:KEYID:PATH of the app's .p8 signing key (token authentication).")
    var authKey: String?

    @Option(help: "PATH of a PEM file with the app's push certificate and its private key, or of a .p12 file.")
    var cert: String?

    @Option(name: .customLong("cert-password-file"), help: "A file holding the .p12's password.")
    var certPasswordFile: String?

    /// The `authentication` object of the API, read from the files; `nil` when neither option is given.
    ///
    /// - Throws: ``UsageError`` naming the option when both are given or a file cannot be read.
    func authentication() throws -> JSONValue? {
        switch (authKey, cert) {
        case (nil, nil): return nil
        case (.some, .some): throw UsageError("give --auth-key or --cert, not both")
        case (let text?, nil):
            let key = try AuthKeyOption(parsing: text)
            return .object(
                JSONObject([
                    ("kind", "token"), ("teamID", .string(key.teamID)), ("keyID", .string(key.keyID)),
                    ("privateKey", .string(key.pem)),
                ]))
        case (nil, let path?):
            let data = try OptionFile.read(path, option: "--cert")
            if let pem = String(data: data, encoding: .utf8), pem.contains("-----BEGIN") {
                return .object(JSONObject([("kind", "certificate"), ("certificate", .string(pem))]))
            }
            var members: [(key: String, value: JSONValue)] = [
                ("kind", "certificate"), ("pkcs12", .string(data.base64EncodedString())),
            ]
            if let certPasswordFile {
                let password = String(
                    decoding: try OptionFile.read(certPasswordFile, option: "--cert-password-file"), as: UTF8.self)
                members.append(("password", .string(password.trimmingCharacters(in: .newlines))))
            }
            return .object(JSONObject(members))
        }
    }
}
