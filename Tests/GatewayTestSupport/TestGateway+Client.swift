package import APNSClient
import APNSCore
import APNSGateway

extension TestGateway {
    /// A client of this gateway, as a provider's: the gateway's CA trusted, its test key signing.
    package func pushClient() throws -> APNSPushClient {
        try APNSPushClient(
            configuration: .init(
                endpoint: APNSEndpoint(
                    host: "127.0.0.1", port: port, additionalTrustRootsPEM: server.certificateAuthority.caCertificatePEM
                ),
                authentication: .token(signer)))
    }
}
