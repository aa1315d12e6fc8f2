public import Foundation

extension HeraldConsole {
    /// What the console shows besides the provider's own data.
    public struct Configuration: Sendable {
        /// The local gateway whose delivery log the console reads (`herald up` wires its own; `herald serve
        /// --gateway-admin`).
        public var gateway: Gateway?
        /// Simulated devices' JSON APIs (`herald device --api-port`), drawn on the Devices page.
        public var deviceAPIs: [URL]

        public init(gateway: Gateway? = nil, deviceAPIs: [URL] = []) {
            self.gateway = gateway
            self.deviceAPIs = deviceAPIs
        }
    }

    /// How to read a local gateway's admin API.
    public struct Gateway: Sendable {
        /// Its base URL, such as `https://127.0.0.1:2197`.
        public var url: URL
        /// Its admin token (`DATA/gateway/admin-token`).
        public var adminToken: String
        /// The CA its certificate is signed by (PEM), when it is not a public one.
        public var caPEM: String?

        public init(url: URL, adminToken: String, caPEM: String? = nil) {
            self.url = url
            self.adminToken = adminToken
            self.caPEM = caPEM
        }
    }
}
