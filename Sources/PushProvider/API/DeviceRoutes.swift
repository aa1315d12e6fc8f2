import APNSCore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

extension PushProviderService {
    func addDeviceRoutes(to router: Router<BasicRequestContext>) {
        router.post("v1/devices") { request, _ -> Response in
            let app = try await self.caller(request).anyApp(request, store: self.store)
            let input = try await JSONCoding.decode(DeviceInput.self, from: request)
            try Self.check(input, for: app)
            let (device, created) = try await self.store.upsertDevice(appID: app.app.id, input, at: Date())
            return try JSONCoding.response(device, status: created ? .created : .ok)
        }
        router.post("v1/devices/import") { request, _ -> Response in
            let app = try await self.caller(request).serverApp(request, store: self.store)
            let input = try await JSONCoding.decode(DeviceImport.self, from: request, limit: 16 << 20)
            guard (1...10_000).contains(input.devices.count) else {
                throw ProviderError.field("devices", "give 1 to 10,000 devices per import")
            }
            for (index, device) in input.devices.enumerated() {
                if let problem = Self.problem(with: device, for: app) {
                    throw ProviderError.invalid(field: "devices[\(index)].\(problem.field)", message: problem.message)
                }
            }
            let created = try await self.store.upsertDevices(appID: app.app.id, input.devices, at: Date())
            return try JSONCoding.response(["imported": input.devices.count, "created": created])
        }
        router.get("v1/devices") { request, _ -> Response in
            let app = try await self.caller(request).serverApp(request, store: self.store)
            let query = request.uri.queryParameters
            let limit = min(1000, max(1, query.get("limit").flatMap { Int($0) } ?? 100))
            let devices = try await self.store.devices(
                appID: app.app.id, userID: query.get("user"), tag: query.get("tag"), after: query.get("after"),
                limit: limit)
            return try JSONCoding.response(devices)
        }
        router.get("v1/devices/:token") { request, context -> Response in
            let app = try await self.caller(request).serverApp(request, store: self.store)
            let token = try context.parameters.require("token")
            guard let device = try await self.store.device(appID: app.app.id, token: token) else {
                throw ProviderError.notFound("app \(app.app.id) has no device \(token)")
            }
            return try JSONCoding.response(device)
        }
        router.delete("v1/devices/:token") { request, context -> HTTPResponse.Status in
            let app = try await self.caller(request).anyApp(request, store: self.store)
            let token = try context.parameters.require("token")
            guard try await self.store.deleteDevice(appID: app.app.id, token: token) else {
                throw ProviderError.notFound("app \(app.app.id) has no device \(token)")
            }
            return .noContent
        }
    }

    /// The body of `POST /v1/devices/import`: registrations moved from another provider, at most 10,000 a call.
    struct DeviceImport: Decodable {
        var devices: [DeviceInput]
    }

    /// The first problem with a registration, as a field and a message.
    static func problem(with input: DeviceInput, for app: StoredApp) -> (field: String, message: String)? {
        do {
            try check(input, for: app)
            return nil
        } catch {
            if case .invalid(let field, let message) = error { return (field ?? "", message) }
            return ("", error.description)
        }
    }

    /// The most tags one device may carry.
    static let maximumTagsPerDevice = 64
    /// The longest tag, in characters.
    static let maximumTagLength = 128

    /// Checks a registration against the app it is for.
    static func check(_ input: DeviceInput, for app: StoredApp) throws(ProviderError) {
        _ = try NotificationTarget.checkToken(input.token, field: "token")
        if let tags = input.tags {
            guard tags.count <= maximumTagsPerDevice else {
                throw .field("tags", "a device has at most \(maximumTagsPerDevice) tags; this one has \(tags.count)")
            }
            if let long = tags.firstIndex(where: { $0.isEmpty || $0.count > maximumTagLength }) {
                throw .field("tags[\(long)]", "a tag is 1 to \(maximumTagLength) characters")
            }
        }
        if let userID = input.userID, userID.isEmpty || userID.count > 256 {
            throw .field("userID", "a user ID is 1 to 256 characters")
        }
        if let bundleID = input.bundleID, bundleID != app.app.bundleID {
            throw .field("bundleID", "this key belongs to \(app.app.bundleID), not \(bundleID)")
        }
        if let environment = input.environment, APNSEnvironment(name: environment)?.rawValue != app.app.environment {
            throw .field(
                "environment",
                "the app sends to the \(app.app.environment) environment; a \(environment) token would be rejected")
        }
        if let timeZone = input.timeZone, TimeZone(identifier: timeZone) == nil {
            throw .field("timeZone", "not an IANA time zone such as Asia/Shanghai: \(timeZone)")
        }
        if let key = input.publicKey {
            guard let data = Data(base64Encoded: key),
                (try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: data)) != nil
            else { throw .field("publicKey", "must be a 32-byte X25519 public key in base64") }
        }
    }
}
