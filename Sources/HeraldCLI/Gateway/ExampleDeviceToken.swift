import APNSCore
import Crypto
import Foundation

/// The device token the banner's example uses: the same for a topic and environment at every start, so restarts do not pile up tokens
/// in the gateway's journal and a pasted example keeps working.
enum ExampleDeviceToken {
    static func token(for topic: String, environment: APNSEnvironment) -> APNSDeviceToken {
        let digest = SHA256.hash(data: Data("herald example device \(topic) \(environment)".utf8))
        return try! APNSDeviceToken(bytes: Data(digest))
    }
}
