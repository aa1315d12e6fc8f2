import Foundation
import NIOSSL

/// Why a connection could not be set up, and whether trying again can help.
struct ConnectionSetupError: Error, CustomStringConvertible {
    let message: String
    /// False for what a retry cannot fix: an untrusted certificate, a wrong host name, no HTTP/2.
    let retryable: Bool

    var description: String { message }

    /// The TLS failure `error`, said plainly: what the server did and what to change, never the TLS library's
    /// own text with its build paths.
    static func tls(_ error: any Error, endpoint: String) -> ConnectionSetupError {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return ConnectionSetupError(
                message: "TLS with \(endpoint) failed: the server's certificate is not trusted "
                    + "(CERTIFICATE_VERIFY_FAILED); pass --ca-file FILE with its CA (the local gateway's is "
                    + "DATA/ca.pem: .herald/up/gateway/ca.pem under herald up, .herald/gateway/ca.pem under herald "
                    + "gateway)",
                retryable: false)
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return ConnectionSetupError(
                message: "TLS with \(endpoint) failed: its certificate is not for that host name", retryable: false)
        }
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("HTTP_REQUEST") {
            return ConnectionSetupError(
                message: "TLS with \(endpoint) failed: that port speaks plain HTTP, not TLS (is it the provider API or "
                    + "the console? they are http://); send to an APNs: the local gateway (https://127.0.0.1:2197 "
                    + "under herald up) or Apple's (--environment)",
                retryable: false)
        }
        return ConnectionSetupError(
            message: "TLS with \(endpoint) failed: \(Self.reason(in: text) ?? "the handshake did not complete")",
            retryable: true)
    }

    /// BoringSSL's reason code in an error's text (`OPENSSL_internal:REASON`), without the file and line.
    private static func reason(in text: String) -> String? {
        guard let range = text.range(of: "OPENSSL_internal:") else { return nil }
        let reason = text[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return reason.isEmpty ? nil : String(reason)
    }
}
