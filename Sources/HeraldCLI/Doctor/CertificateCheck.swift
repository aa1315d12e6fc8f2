import APNSClient
import APNSCore
import APNSGateway
import Foundation
import NIOSSL

/// `herald doctor`'s look at `--cert`: it can be read (with its password), it is an APNs certificate for the topic
/// and the environment sent to (Apple's extensions in it), and how long it is still valid.
enum CertificateCheck {
    /// Days of validity under which a certificate is flagged.
    static let warningDays = 30

    static func run(_ target: SendTargetOptions, topic: String, now: Date = Date()) -> DoctorCheck {
        let name = "certificate"
        let file = target.cert ?? ""
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
            return .failed(name, "no certificate in \(file)", next: "give the APNs certificate")
        }
        if let problem = pushProblem(first, file: file, topic: topic, environment: environment(of: target)) {
            return problem
        }
        let expires = Date(timeIntervalSince1970: TimeInterval(first.notValidAfter))
        let days = Int(expires.timeIntervalSince(now) / 86_400)
        let day = ISO8601DateFormatter().string(from: expires).prefix(10)
        if expires <= now {
            return .failed(
                name, "\(file): expired on \(day)",
                next: "make a new APNs certificate in your developer account, or move to a .p8 key (it never expires)")
        }
        if days < warningDays {
            return DoctorCheck(
                name: name, outcome: .warning, found: "\(file): expires on \(day), in \(days) days",
                next: "renew it before then, or move to a .p8 key")
        }
        return .passed(name, "\(file): for \(topic), valid until \(day) (\(days) days)")
    }

    /// The environment sent to, when it is Apple's (`nil` for `--url`: another server decides).
    private static func environment(of target: SendTargetOptions) -> APNSEnvironment? {
        guard target.url == nil else { return nil }
        return target.environment?.lowercased() == "production" ? .production : .development
    }

    /// Why the certificate cannot push to `topic` in `environment`, from the extensions Apple puts in it.
    private static func pushProblem(
        _ certificate: NIOSSLCertificate, file: String, topic: String, environment: APNSEnvironment?
    ) -> DoctorCheck? {
        let name = "certificate"
        guard let der = try? certificate.toDERBytes(), let push = try? PushCertificate(der: der) else {
            return .failed(
                name,
                "\(file) is not an APNs certificate (it has none of Apple's push topic and environment "
                    + "extensions): APNs answers 403 BadCertificate",
                next:
                    "make an \"Apple Push Notification service SSL\" certificate for the app in your developer account "
                    + "(Certificates), or use a .p8 key")
        }
        let topics = push.topics.joined(separator: ", ")
        if !push.topics.contains(topic) {
            return .failed(
                name, "\(file) may push to \(topics), not to \(topic): APNs answers 400 TopicDisallowed",
                next: "give --topic one of its topics (the app's bundle ID), or use the certificate of \(topic)'s app")
        }
        let names = push.environments.map { $0 == .production ? "production" : "sandbox" }.sorted()
        if let environment, !push.environments.contains(environment) {
            let wanted = environment == .production ? "production" : "sandbox"
            return .failed(
                name,
                "\(file) is for \(names.joined(separator: " and ")) only, not \(wanted): APNs answers 403 "
                    + "BadCertificateEnvironment",
                next: "send with --environment \(names[0]), or make a \"Sandbox & Production\" certificate")
        }
        return nil
    }
}
