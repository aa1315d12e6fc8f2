import APNSClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// `herald doctor`'s way to the server, one step at a time: the name resolves, TCP connects, TLS (1.2 or later) is
/// agreed with a certificate the trust store accepts for that name, and the server picks HTTP/2 (ALPN `h2`).
enum ConnectionCheck {
    /// The checks in order; a step that fails ends the list.
    static func run(_ endpoint: APNSEndpoint, timeout: Duration) async -> [DoctorCheck] {
        let addresses: [SocketAddress]
        do {
            addresses = try await resolve(endpoint)
        } catch {
            return [
                .failed(
                    "address", "\(endpoint.host) does not resolve (\(error))",
                    next: "check the name and this machine's DNS (/etc/resolv.conf); Apple's hosts are "
                        + "api.push.apple.com and api.sandbox.push.apple.com")
            ]
        }
        let shown = addresses.prefix(3).compactMap(\.ipAddress).joined(separator: ", ")
        let target = endpoint.connectAddress
        let isAddress = (try? SocketAddress(ipAddress: target.host, port: target.port)) != nil
        let found =
            endpoint.connectTo != nil
            ? "\(target.host):\(target.port) in place of \(endpoint.host)'s address (--connect-to)"
            : isAddress ? "\(endpoint.host) is an address" : "\(endpoint.host) resolves to \(shown)"
        var checks = [DoctorCheck.passed("address", found)]
        let started = ContinuousClock.now
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(max(1, timeout.components.seconds)))
                .connect(to: addresses[0]).get()
        } catch {
            checks.append(
                .failed(
                    "connection",
                    "TCP to \(addresses[0].ipAddress ?? "?"):\(addresses[0].port ?? endpoint.port) failed: \(reason(error))",
                    next: endpoint.host.hasSuffix("push.apple.com")
                        ? "let this machine reach port \(endpoint.port) outward (a firewall or proxy?); APNs "
                            + "also listens on 2197"
                        : "is herald gateway or herald up running there? check --url"))
            return checks
        }
        let milliseconds =
            (ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000_000
            + (ContinuousClock.now - started).components.seconds * 1000
        checks.append(
            .passed(
                "connection",
                "TCP to \(addresses[0].ipAddress ?? "?"):\(addresses[0].port ?? endpoint.port) in \(milliseconds) ms"))
        checks.append(await handshake(on: channel, endpoint: endpoint, timeout: timeout))
        try? await channel.close()
        return checks
    }

    private static func resolve(_ endpoint: APNSEndpoint) async throws -> [SocketAddress] {
        let (host, port) = endpoint.connectAddress
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        if let address = try? SocketAddress(ipAddress: host, port: port) { return [address] }
                        let found = try SocketAddress.makeAddressResolvingHost(host, port: port)
                        return [found]
                    })
            }
        }
    }

    /// TLS with the endpoint's trust, then ALPN.
    static func handshake(on channel: any Channel, endpoint: APNSEndpoint, timeout: Duration) async
        -> DoctorCheck
    {
        let name = "TLS"
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        if let pem = endpoint.additionalTrustRootsPEM {
            guard let roots = try? NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)) else {
                return .failed(name, "the --ca-file is not a PEM certificate", next: "give the server's CA as PEM")
            }
            tls.additionalTrustRoots = [.certificates(roots)]
        }
        let outcome = channel.eventLoop.makePromise(of: String?.self)
        do {
            let context = try NIOSSLContext(configuration: tls)
            let serverName = endpoint.host.first?.isNumber == true || endpoint.host.contains(":") ? nil : endpoint.host
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandlers([
                    try NIOSSLClientHandler(context: context, serverHostname: serverName),
                    ApplicationProtocolNegotiationHandler { result in
                        if case .negotiated(let chosen) = result {
                            outcome.succeed(chosen)
                        } else {
                            outcome.succeed(nil)
                        }
                        return channel.eventLoop.makeSucceededVoidFuture()
                    },
                    FailureCatcher(promise: outcome),
                ])
            }.get()
            channel.eventLoop.scheduleTask(in: .seconds(max(1, timeout.components.seconds))) {
                outcome.fail(ChannelError.connectTimeout(.seconds(max(1, timeout.components.seconds))))
            }
            let chosen = try await outcome.futureResult.get()
            guard chosen == "h2" else {
                return .failed(
                    name, "TLS was agreed but the server did not choose HTTP/2 (ALPN: \(chosen ?? "none"))",
                    next: "APNs speaks only HTTP/2: is --url an APNs (the local gateway's push port, Apple's host)?")
            }
            return .passed(
                name, "TLS 1.2 or later with HTTP/2 (ALPN h2); the certificate is trusted for \(endpoint.host)")
        } catch {
            // The handlers may never have been added (the server closed the connection first): the promise is
            // completed here, or NIO reports it leaked (a trap in a debug build). A second completion is ignored.
            outcome.fail(error)
            return .failed(name, failure(error, endpoint: endpoint), next: nextStep(error, endpoint: endpoint))
        }
    }

    private static func failure(_ error: any Error, endpoint: APNSEndpoint) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") { return "the server's certificate is not trusted here" }
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("HTTP_REQUEST") {
            return "that port speaks plain HTTP, not TLS"
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the certificate is not for \(endpoint.host)"
        }
        if case ChannelError.connectTimeout = error {
            return "the server accepted TCP but did not answer TLS in time (is it an HTTPS server?)"
        }
        return "the handshake failed: \(reason(error))"
    }

    private static func nextStep(_ error: any Error, endpoint: APNSEndpoint) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            if endpoint.host.hasSuffix("push.apple.com") {
                return "add Apple's root, USERTrust RSA Certification Authority (APNs' CA since 2025), to the trust "
                    + "store: on Debian `apt-get install ca-certificates && update-ca-certificates`"
            }
            return "pass --ca-file FILE with the server's CA (the local gateway's is DATA/ca.pem: "
                + ".herald/up/gateway/ca.pem under herald up)"
        }
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("HTTP_REQUEST") {
            return "that is the provider API or the console (http://); give the APNs' URL (the local gateway's push "
                + "port, 2197 under herald up) or --environment"
        }
        return "check --url and that the server is an APNs"
    }

    /// An error said without a library's type names and build paths.
    private static func reason(_ error: any Error) -> String {
        let text = String(describing: error)
        if let range = text.range(of: "OPENSSL_internal:") {
            return String(text[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        }
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        if let connection = error as? NIOConnectionError, let first = connection.connectionErrors.first {
            return reason(first.error)
        }
        if error is ChannelError { return "no answer in time" }
        return text
    }

    /// Fails the handshake's promise with the first error or the connection closing.
    private final class FailureCatcher: ChannelInboundHandler, Sendable {
        typealias InboundIn = Never
        let promise: EventLoopPromise<String?>

        init(promise: EventLoopPromise<String?>) { self.promise = promise }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(ChannelError.eof)
        }
    }
}
