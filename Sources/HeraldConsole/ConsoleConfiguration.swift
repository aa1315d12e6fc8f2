package import Foundation
package import HeraldTime

extension ConsolePlugin {
    /// What the console shows besides the provider's own data.
    package struct Configuration: Sendable {
        /// The local gateway whose delivery log the console reads (`herald up` wires its own; `herald serve
        /// --gateway-admin`).
        package var gateway: Gateway?
        /// Simulated devices' JSON APIs (`herald device --api-port`), drawn on the Devices page.
        package var deviceAPIs: [URL]
        /// What "Copy as herald send" needs to work as pasted on this machine.
        package var sendFiles: SendFiles
        /// The time sessions, login codes and sign-in limits are judged by: the provider's clock
        /// (`PushProviderService.Configuration.clock`) under `herald serve` and `herald up`.
        package var clock: any WallClock

        package init(
            gateway: Gateway? = nil, deviceAPIs: [URL] = [], sendFiles: SendFiles = SendFiles(),
            clock: any WallClock = SystemWallClock()
        ) {
            self.gateway = gateway
            self.deviceAPIs = deviceAPIs
            self.sendFiles = sendFiles
            self.clock = clock
        }
    }

    /// The files behind an app's credentials and endpoint on the machine the console runs on, so the `herald send`
    /// it copies names them by absolute path. Paths only, never a key's contents.
    package struct SendFiles: Sendable, Encodable {
        /// The command that runs Herald (`herald`, or the binary's path).
        package var command: String
        /// The `.p8` file of each signing key, by key ID.
        package var keyFiles: [String: String]
        /// The CA file to trust for each endpoint (`https://127.0.0.1:2197`).
        package var caFiles: [String: String]

        package init(command: String = "herald", keyFiles: [String: String] = [:], caFiles: [String: String] = [:]) {
            self.command = command
            self.keyFiles = keyFiles
            self.caFiles = caFiles
        }
    }

    /// How to read a local gateway's admin API.
    package struct Gateway: Sendable {
        /// Its base URL, such as `https://127.0.0.1:2197`.
        package var url: URL
        /// Its admin token (`DATA/gateway/admin-token`).
        package var adminToken: String
        /// The CA its certificate is signed by (PEM), when it is not a public one.
        package var caPEM: String?

        package init(url: URL, adminToken: String, caPEM: String? = nil) {
            self.url = url
            self.adminToken = adminToken
            self.caPEM = caPEM
        }
    }
}
