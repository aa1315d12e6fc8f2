import ArgumentParser
import Foundation
import NIOSSL
import PushProvider

/// Who reaches the provider's listener and how: TLS from `--tls-cert` and `--tls-key`, and who may read `/metrics`.
extension ServeCommand {
    /// Who may read `/metrics`: anyone with `--public-metrics`, else a bearer token (the admin token, or the one in
    /// `--metrics-token-file`).
    func metricsAccess() throws -> MetricsAccess {
        if publicMetrics { return .open }
        guard let metricsTokenFile else { return .token(scrapeToken: nil) }
        let token = String(
            decoding: try OptionFile.read(metricsTokenFile, option: "--metrics-token-file"), as: UTF8.self
        )
        .trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= 16 else {
            throw UsageError(
                "--metrics-token-file: \(metricsTokenFile) holds \(token.count) characters; a token of at least 16 is "
                    + "needed (for example: openssl rand -hex 32 > \(metricsTokenFile))")
        }
        return .token(scrapeToken: token)
    }

    /// TLS from `--tls-cert` and `--tls-key`, or `nil` for plain HTTP.
    func tlsConfiguration() throws -> TLSConfiguration? {
        guard let tlsCert, let tlsKey else { return nil }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(tlsCert)
        } catch {
            throw UsageError("--tls-cert: cannot read a PEM certificate from \(tlsCert)")
        }
        guard !chain.isEmpty else { throw UsageError("--tls-cert: \(tlsCert) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: tlsKey, format: .pem)
        } catch {
            throw UsageError(
                "--tls-key: cannot read a PEM private key from \(tlsKey) (an encrypted key is not supported)")
        }
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}
