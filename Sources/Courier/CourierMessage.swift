package import APNSCore
package import Foundation

/// A message a device sends on the courier (docs/courier.md).
package enum CourierMessage {
    /// `{"op": "register", "bundle-id", "environment"?, "token"?, "secret"?}`: receive an app's notifications,
    /// keeping `token` when it is still valid and `secret` proves the device owns it.
    case register(bundleID: String, environment: APNSEnvironment, token: APNSDeviceToken?, secret: String?)
    /// `{"op": "ack", "token", "apns-id"}`: the device received a notification.
    case acknowledge(token: APNSDeviceToken, apnsID: UUID)
    /// `{"op": "unregister", "token"}`: the app was removed; pushes to its token get `410 Unregistered`.
    case unregister(token: APNSDeviceToken)
    /// `{"op": "subscribe", "token", "channel-id"}`: an activity of the app subscribes to one of its app's channels.
    case subscribe(token: APNSDeviceToken, channel: APNSChannelID)
    /// `{"op": "unsubscribe", "token", "channel-id"}`: no more broadcasts on that channel for the app.
    case unsubscribe(token: APNSDeviceToken, channel: APNSChannelID)
    /// `{"op": "broadcast-ack", "token", "apns-unique-id"}`: the device received a broadcast.
    case acknowledgeBroadcast(token: APNSDeviceToken, uniqueID: UUID)

    package init(_ bytes: [UInt8]) throws(GatewayDataError) {
        guard case .object(let object)? = try? JSONValue(parsing: Data(bytes)), let op = object["op"]?.string else {
            throw GatewayDataError("a courier message is a JSON object with \"op\"; see docs/courier.md")
        }
        func token(required: Bool) throws(GatewayDataError) -> APNSDeviceToken? {
            guard let text = object["token"]?.string else {
                if required { throw GatewayDataError("\(op): \"token\" is missing") }
                return nil
            }
            do {
                return try APNSDeviceToken(hex: text)
            } catch {
                throw GatewayDataError("\(op): \"token\" is not a device token: \(error.message)")
            }
        }
        func channel() throws(GatewayDataError) -> APNSChannelID {
            guard let text = object["channel-id"]?.string else {
                throw GatewayDataError("\(op): \"channel-id\" is missing")
            }
            guard let id = APNSChannelID(rawValue: text) else {
                throw GatewayDataError("\(op): \(APNSChannelID.problem(with: text) ?? "not a channel ID")")
            }
            return id
        }
        switch op {
        case "register":
            guard let bundleID = object["bundle-id"]?.string else {
                throw GatewayDataError("register: \"bundle-id\" is missing")
            }
            if let problem = APNSTopic.problem(with: bundleID) { throw GatewayDataError("register: \(problem)") }
            let name = object["environment"]?.string ?? "development"
            guard let environment = APNSEnvironment(name: name) else {
                throw GatewayDataError("register: environment '\(name)' is not development or production")
            }
            let secret = object["secret"]?.string
            if object["secret"] != nil, (secret?.utf8.count ?? .max) > 256 {
                throw GatewayDataError("register: \"secret\" is the string the gateway gave with the token")
            }
            self = .register(
                bundleID: bundleID, environment: environment, token: try token(required: false), secret: secret)
        case "ack":
            guard let text = object["apns-id"]?.string, let apnsID = UUIDText.parse(text) else {
                throw GatewayDataError("ack: \"apns-id\" is missing or not a UUID")
            }
            self = .acknowledge(token: try token(required: true)!, apnsID: apnsID)
        case "unregister":
            self = .unregister(token: try token(required: true)!)
        case "subscribe":
            self = .subscribe(token: try token(required: true)!, channel: try channel())
        case "unsubscribe":
            self = .unsubscribe(token: try token(required: true)!, channel: try channel())
        case "broadcast-ack":
            guard let text = object["apns-unique-id"]?.string, let uniqueID = UUIDText.parse(text) else {
                throw GatewayDataError("broadcast-ack: \"apns-unique-id\" is missing or not a UUID")
            }
            self = .acknowledgeBroadcast(token: try token(required: true)!, uniqueID: uniqueID)
        default:
            throw GatewayDataError(
                "unknown op '\(op)': register, ack, unregister, subscribe, unsubscribe or broadcast-ack")
        }
    }
}
