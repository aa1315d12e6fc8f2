import APNSCore
import APNSGateway
import Courier
import Crypto
import Dispatch
import Foundation
import HeraldTime
import ProviderStorage
import PushProvider

/// The parsers an attacker reaches, each fed arbitrary bytes: a crash, a trap or a hang here is a bug.
enum FuzzTarget: String, CaseIterable {
    /// APNSCore's JSON parser (every payload, admin body and courier message goes through it), and the check that
    /// reads the same grammar without building values (the gateway's, of every payload): they must answer alike.
    case json
    /// `herald payload lint` and the gateway's payload checks: the bytes as a body, with header values cut from them.
    case lint
    /// Provider token verification (the gateway's `authorization` header).
    case jwt
    /// A provider token's claims, signed with a key the verifier trusts, so the claims' checks (`iat` at any
    /// number) are reached: the bytes are the claims JSON.
    case claims
    /// Device tokens in hex (the gateway's path, the courier, the provider's API).
    case token
    /// The provider's tag expressions (`target.tags`).
    case tags
    /// Courier messages from devices.
    case courier
    /// The gateway's admin API: up to 8 requests, one a line, each method, path and body, with the right credential,
    /// to a gateway of their own (a crash's input alone reproduces it).
    case admin

    /// Runs one input.
    func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .json:
            let parsed = Result { () throws(JSONSyntaxError) in try JSONValue(parsing: Data(bytes)).typeName }
            let checked = Result { () throws(JSONSyntaxError) in try JSONValue.checkSyntax(of: bytes) }
            if parsed != checked { fatalError("the check answered \(checked), the parser \(parsed)") }
        case .lint:
            let lines = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
            _ = APNSLinter.lint(
                APNSLinter.Request(
                    body: Data(bytes), pushType: lines.first, priority: lines.dropFirst().first,
                    expiration: lines.dropFirst(2).first, collapseID: lines.last))
        case .jwt:
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                _ = await Self.verifier.verify(authorization: text, now: Date())
                done.signal()
            }
            done.wait()
        case .claims:
            let header = Self.base64URL(Data(#"{"alg":"ES256","kid":"SIGNED1234"}"#.utf8))
            let signed = header + "." + Self.base64URL(Data(bytes))
            guard let signature = try? Self.signingKey.signature(for: Data(signed.utf8)) else { return }
            let jwt = "bearer " + signed + "." + Self.base64URL(signature.rawRepresentation)
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                _ = await Self.verifier.verify(authorization: jwt, now: Date())
                done.signal()
            }
            done.wait()
        case .token: _ = try? APNSDeviceToken(hex: text)
        case .tags: _ = try? TagExpression(parsing: text)
        case .courier: _ = try? CourierMessage(bytes)
        case .admin:
            let adminAPI = Self.makeAdminAPI()
            for request in text.split(separator: "\n", maxSplits: 7) {
                let parts = request.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                    .map(String.init)
                _ = adminAPI.process(
                    method: parts.first, path: parts.dropFirst().first ?? "",
                    body: Array(parts.dropFirst(2).first?.utf8 ?? "".utf8),
                    authorization: "Bearer \(Self.credential.token)", source: nil)
            }
        }
    }

    /// A verifier that knows one key, so inputs can reach the signature check.
    static let verifier: APNSProviderTokenVerifier = {
        var verifier = APNSProviderTokenVerifier()
        // A fixed P-256 public key (key ID ABC123DEFG, team DEF123GHIJ).
        try? verifier.addKey(
            pem: """
                -----BEGIN PUBLIC KEY-----
                MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEbDdWnnpi9y10vOHd2E+f9uong+WV
                mKUhALVr+kPyxHEO0yMV5lUAwOWFTfz9pZSTDlVPdOugRwR2no7Cu9jMGQ==
                -----END PUBLIC KEY-----
                """, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        try? verifier.addKey(pem: signingKey.publicKey.pemRepresentation, keyID: "SIGNED1234", teamID: "DEF123GHIJ")
        return verifier
    }()

    /// The key ``claims`` inputs are signed with (key ID SIGNED1234, team DEF123GHIJ).
    static let signingKey = P256.Signing.PrivateKey()

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static let credential = try! AdminCredential.loadOrCreate(
        in: FileManager.default.temporaryDirectory.appendingPathComponent("herald-fuzz-admin"))

    /// A new admin API over an in-memory registry and store (no CA: certificate requests answer 404).
    static func makeAdminAPI() -> AdminRequestProcessor {
        AdminRequestProcessor(
            registry: DeviceRegistry(), store: NotificationStore(), keys: ProviderKeys(), faults: InjectedFaults(),
            credential: credential, certificateAuthority: nil, clock: SystemWallClock())
    }

    /// The target named by `HERALD_FUZZ_TARGET`.
    static let current: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["HERALD_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(
                Data("set HERALD_FUZZ_TARGET to one of \(allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
            exit(2)
        }
        return target
    }()
}

#if FUZZING
    /// libFuzzer's entry point (`swift build` with `HERALD_FUZZ=1`; see Fuzz/run.sh).
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        FuzzTarget.current.run(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    /// The executable's entry point as SwiftPM links it: libFuzzer's driver, with the arguments libFuzzer reads.
    @_cdecl("HeraldFuzz_main")
    public func heraldFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
    }
#else
    /// Without libFuzzer: runs every file of the corpus (`Fuzz/corpus/<target>/*`, or the folders given) through its
    /// target once, so the inputs that once found a bug stay checked in an ordinary build.
    @main
    enum CorpusReplay {
        static func main() throws {
            let arguments = CommandLine.arguments.dropFirst()
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("corpus")
            let folders =
                arguments.isEmpty
                ? FuzzTarget.allCases.map { root.appendingPathComponent($0.rawValue) }
                : arguments.map { URL(fileURLWithPath: $0) }
            var count = 0
            for folder in folders {
                guard let target = FuzzTarget(rawValue: folder.lastPathComponent) else {
                    throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: folder.path])
                }
                for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
                    target.run(Array(try Data(contentsOf: folder.appendingPathComponent(file))))
                    count += 1
                }
            }
            print("\(count) passed, 0 failed: every corpus input ran without a crash")
        }
    }
#endif
