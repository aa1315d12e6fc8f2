import APNSCore
import ArgumentParser
import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `herald keys`: signing keys for the local APNs.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make a signing key (.p8) for the local APNs.",
        subcommands: [Generate.self]
    )

    /// `herald keys generate`.
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new P-256 key as Apple's .p8 (PKCS#8 PEM, mode 0600) and print the flags that use it.",
            discussion: """
                For the local APNs only: Apple's servers trust the keys made in your developer account \
                (Certificates, Identifiers & Profiles → Keys), which Apple gives you as AuthKey_KEYID.p8 once.
                """)

        @Option(name: .customLong("team-id"), help: "The team ID the key is for: 10 uppercase letters or digits.")
        var teamID = "HERALDTEAM"

        @Option(
            name: .customLong("key-id"), help: "The key's ID: 10 uppercase letters or digits (default: a random one).")
        var keyID: String?

        @Option(help: "The folder to write AuthKey_KEYID.p8 in (made, mode 0700, when it does not exist).")
        var out = "."

        func validate() throws {
            for (flag, value) in [("--team-id", teamID), ("--key-id", keyID)] {
                guard let value, !APNSIdentifiers.isWellFormed(value) else { continue }
                throw ValidationError(
                    "\(flag) '\(value)' is not 10 uppercase letters or digits, the form of Apple's IDs "
                        + "(for example ABC123DEFG)")
            }
        }

        func run() async throws {
            let keyID = keyID ?? Self.randomID()
            let key = P256.Signing.PrivateKey()
            let folder = URL(fileURLWithPath: out).standardizedFileURL
            let file = folder.appendingPathComponent("AuthKey_\(keyID).p8")
            do {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CommandFailure(
                    "cannot make the folder \(folder.path): \(error.localizedDescription)",
                    next: "choose a folder you can write with --out DIR")
            }
            try Self.writeNew(Data((key.pemRepresentation + "\n").utf8), to: file)
            let authKey = "\(teamID):\(keyID):\(file.path)"
            CommandIO.current.write(
                """
                wrote \(file.path) (P-256, PKCS#8 PEM as Apple's .p8, mode 0600; for the local APNs only)
                  a local APNs that trusts it:  \(RunningBinary.command) gateway --auth-key \(authKey)
                  a send signed with it:        \(RunningBinary.command) send --auth-key \(authKey) \\
                                                  --url https://127.0.0.1:2197 --ca-file .herald/gateway/ca.pem ...
                  an app at the provider:       \(RunningBinary.command) apps create --bundle-id BUNDLE_ID \\
                                                  --auth-key \(authKey) --endpoint https://127.0.0.1:2197 \\
                                                  --ca .herald/gateway/ca.pem

                """)
        }

        /// A key ID of Apple's form, at random.
        static func randomID() -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            var generator = SystemRandomNumberGenerator()
            return String((0..<10).map { _ in alphabet.randomElement(using: &generator)! })
        }

        /// Writes `data` to a file that must not exist yet, mode 0600 from the start.
        static func writeNew(_ data: Data, to file: URL) throws {
            let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard descriptor >= 0 else {
                let code = errno
                throw CommandFailure(
                    "cannot write \(file.path): \(String(cString: strerror(code)))",
                    next: code == EEXIST
                        ? "a key with that ID is there already: keep it, or choose another with --key-id"
                        : "choose a folder you can write with --out DIR")
            }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try handle.write(contentsOf: data)
            try handle.close()
        }
    }
}
