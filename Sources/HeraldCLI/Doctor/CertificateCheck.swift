import APNSClient
import Foundation
import NIOSSL

/// `herald doctor`'s look at `--cert`: it can be read (with its password), and how long it is still valid.
enum CertificateCheck {
    /// Days of validity under which a certificate is flagged.
    static let warningDays = 30

    static func run(_ target: SendTargetOptions, now: Date = Date()) -> DoctorCheck {
        let name = "certificate"
        let authentication: APNSClientAuthentication
        do {
            authentication = try target.authentication()
        } catch {
            return .failed(
                name, error.message,
                next: "export the APNs certificate with its key as .p12 from Keychain Access, and give its password "
                    + "with --cert-password")
        }
        guard case .certificate(let certificate) = authentication, let first = certificate.chain.first else {
            return .failed(name, "no certificate in \(target.cert ?? "")", next: "give the APNs certificate")
        }
        let expires = Date(timeIntervalSince1970: TimeInterval(first.notValidAfter))
        let days = Int(expires.timeIntervalSince(now) / 86_400)
        let day = ISO8601DateFormatter().string(from: expires).prefix(10)
        if expires <= now {
            return .failed(
                name, "\(target.cert ?? ""): expired on \(day)",
                next: "make a new APNs certificate in your developer account, or move to a .p8 key (it never expires)")
        }
        if days < warningDays {
            return DoctorCheck(
                name: name, outcome: .warning, found: "\(target.cert ?? ""): expires on \(day), in \(days) days",
                next: "renew it before then, or move to a .p8 key")
        }
        return .passed(name, "\(target.cert ?? ""): readable, valid until \(day) (\(days) days)")
    }
}
