import NIOSSL

/// Why a connection could not be set up, and whether trying again can help.
struct ConnectionSetupError: Error, CustomStringConvertible {
    let message: String
    /// False for what a retry cannot fix: an untrusted certificate, a wrong host name, no HTTP/2.
    let retryable: Bool

    var description: String { message }

    /// The TLS failure `error`, said plainly.
    static func tls(_ error: any Error, endpoint: String) -> ConnectionSetupError {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return ConnectionSetupError(
                message: "TLS with \(endpoint) failed: its certificate is not signed by a trusted CA "
                    + "(CERTIFICATE_VERIFY_FAILED); trust the server's CA (herald send --ca-file)",
                retryable: false)
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return ConnectionSetupError(
                message: "TLS with \(endpoint) failed: its certificate is not for that host name", retryable: false)
        }
        return ConnectionSetupError(message: "TLS with \(endpoint) failed: \(text)", retryable: true)
    }
}
