import APNSCore
import Crypto
import Foundation
import HTTPTypes
import HeraldSupport
import HeraldTime
import Hummingbird
import NIOFoundationCompat
import ProviderStorage

struct DeviceRoutes: UserProofRoutes {
    let store: any ProviderStore
    let clock: any WallClock
    let secrets: SecretBox
    /// Notified when a device is registered, changed or deleted.
    let changes: WorkSignal

    func addRoutes(to router: RouterGroup<AuthenticatedRequestContext>) {
        router.post("devices") { request, context -> Response in
            let caller = context.caller
            let app = try await caller.anyApp(request, store: self.store, needs: .devices)
            let input = try await JSONCoding.decode(DeviceInput.self, from: request)
            try Self.check(input, for: app)
            if case .device = caller {
                try input.checkFromDevice()
                try await self.checkPublishableRegistration(
                    input, app: app, userToken: input.userToken ?? request.headers[Self.userTokenHeader])
            }
            let replaced = try await self.replacedDevice(input, app: app, caller: caller, request: request)
            let (device, created) = try await self.store.upsertDevice(appID: app.app.id, input, at: self.now())
            self.changes.notify()
            if let replaced {
                _ = try await self.store.deactivateDevice(
                    appID: app.app.id, token: replaced.token, reason: "replaced", at: self.now())
            }
            return try JSONCoding.response(device, status: created ? .created : .ok)
        }
        router.post("devices/import") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .devices)
            let input = try await DeviceImport(from: request)
            guard (1...Self.importLimit).contains(input.devices.count) else {
                throw ProviderError.field(
                    "devices",
                    "give 1 to \(Self.importLimit.formatted()) devices per import; this has \(input.devices.count)")
            }
            for (index, device) in input.devices.enumerated() {
                if let problem = Self.problem(with: device, for: app) {
                    throw ProviderError.invalid(field: "devices[\(index)].\(problem.field)", message: problem.message)
                }
            }
            let created = try await self.store.upsertDevices(appID: app.app.id, input.devices, at: self.now())
            self.changes.notify()
            return try JSONCoding.response(["imported": input.devices.count, "created": created])
        }
        router.get("devices") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .devices)
            let query = request.uri.queryParameters
            let limit = min(1000, max(1, query.get("limit").flatMap { Int($0) } ?? 100))
            let active: Bool?
            switch query.get("active") {
            case nil: active = nil
            case "true": active = true
            case "false": active = false
            case let other?:
                throw ProviderError.invalid(
                    field: "active", message: "\(other) is neither true nor false; leave it out for both")
            }
            let devices = try await self.store.devices(
                DeviceQuery(
                    appID: app.app.id, userID: query.get("user"), tag: query.get("tag"), active: active,
                    after: query.get("after"), limit: limit))
            return try JSONCoding.response(devices)
        }
        router.get("devices/:token") { request, context -> Response in
            let app = try await context.caller.serverApp(request, store: self.store, needs: .devices)
            let token = try context.parameters.decoded("token")
            guard let device = try await self.store.device(appID: app.app.id, token: token) else {
                throw ProviderError.notFound("app \(app.app.id) has no device \(token)")
            }
            return try JSONCoding.response(device)
        }
        router.delete("devices/:token") { request, context -> HTTPResponse.Status in
            let caller = context.caller
            let app = try await caller.anyApp(request, store: self.store, needs: .devices)
            let token = try context.parameters.decoded("token")
            if case .device = caller, let existing = try await self.store.device(appID: app.app.id, token: token) {
                try self.checkOwnership(
                    of: existing, app: app, userToken: request.headers[Self.userTokenHeader], change: "deleting it")
            }
            guard try await self.store.deleteDevice(appID: app.app.id, token: token) else {
                throw ProviderError.notFound("app \(app.app.id) has no device \(token)")
            }
            self.changes.notify()
            return .noContent
        }
    }

    /// The registration a `replaces` names, when it exists and the caller may retire it (with the publishable key,
    /// the same proof as deleting it).
    func replacedDevice(_ input: DeviceInput, app: StoredApp, caller: Caller, request: Request)
        async throws(ProviderError) -> DeviceRecord?
    {
        guard let token = input.replaces?.lowercased(), token != input.token.lowercased(),
            let old = try await store.device(appID: app.app.id, token: token)
        else { return nil }
        if case .device = caller {
            try checkOwnership(
                of: old, app: app, userToken: input.userToken ?? request.headers[Self.userTokenHeader],
                change: "replacing it")
        }
        return old
    }

    /// Where a publishable-key call may carry its user token.
    static let userTokenHeader = HTTPField.Name("X-Herald-User-Token")!

    /// What the publishable key may do to registrations (it ships in the app, so anyone has it): register a token
    /// and its own fields; bind a user only with that user's token; change the user or end-to-end key of a device
    /// that has them only with proof it owns the device.
    ///
    /// - Throws: ``ProviderError/forbidden(_:)`` saying what proof is missing.
    func checkPublishableRegistration(_ input: DeviceInput, app: StoredApp, userToken: String?)
        async throws(ProviderError)
    {
        let existing = try await store.device(appID: app.app.id, token: input.token.lowercased())
        if let userID = input.userID, userID != existing?.userID {
            // The device's present owner must agree first: another user's token (or none) never moves it, and a
            // device with an end-to-end key but no user is the API key's alone.
            if let existing {
                try checkOwnership(
                    of: existing, app: app, userToken: userToken, change: "binding it to user \(userID)",
                    remedy: existing.userID.map {
                        "; to move it to \(userID), delete it with \($0)'s userToken (signing out), then register "
                            + "it with \(userID)'s"
                    } ?? "")
            }
            guard let userToken else {
                throw .forbidden(
                    "binding a device to user \(userID) with the publishable key needs a userToken for that user from "
                        + "the app's server (POST /v1/users/{userID}/token with its API key); see docs/api.md")
            }
            let proven = try UserToken.user(from: userToken, appID: app.app.id, secrets: secrets, now: now())
            guard proven == userID else {
                throw .forbidden("the userToken is for user \(proven), not \(userID)")
            }
        }
        // A token its app replaced (`replaces`) stays retired: bringing it back would send the user's pushes to it
        // again, so on a device with a user or a key only its owner may.
        if let existing, !existing.active, existing.deactivationReason == "replaced" {
            try checkOwnership(
                of: existing, app: app, userToken: userToken,
                change: "registering it again after its app replaced it")
        }
        // A new end-to-end key decides who can read the device's sealed fields: on a device that has a key or a
        // user, only its owner may set one.
        if let existing, let key = input.publicKey, existing.publicKey != nil || existing.userID != nil,
            key != existing.publicKey
        {
            try checkOwnership(of: existing, app: app, userToken: userToken, change: "replacing its public key")
        }
        // Tags and time zone decide who gets what: on a device bound to a user only that user may change them.
        if let existing, existing.userID != nil, input.userID == nil || input.userID == existing.userID,
            Self.changes(existing, input)
        {
            try checkOwnership(
                of: existing, app: app, userToken: userToken, change: "changing its tags, time zone or locale")
        }
    }

    /// Whether a registration changes what the device's record says (a field left out changes nothing).
    static func changes(_ existing: DeviceRecord, _ input: DeviceInput) -> Bool {
        (input.tags.map { Set($0) != Set(existing.tags) } ?? false)
            || (input.timeZone.map { $0 != existing.timeZone } ?? false)
            || (input.locale.map { $0 != existing.locale } ?? false)
            || (input.appVersion.map { $0 != existing.appVersion } ?? false)
    }

    /// Checks that a publishable-key caller may change `device`: a device bound to a user needs that user's token;
    /// one with an end-to-end key and no user needs the app's API key.
    func checkOwnership(
        of device: DeviceRecord, app: StoredApp, userToken: String?, change: String, remedy: String = ""
    ) throws(ProviderError) {
        if let userID = device.userID {
            guard let userToken else {
                throw .forbidden(
                    "device \(device.token.prefix(8))… belongs to user \(userID): \(change) with the publishable key "
                        + "needs that user's userToken (X-Herald-User-Token), or use the app's API key\(remedy)")
            }
            let proven = try UserToken.user(from: userToken, appID: app.app.id, secrets: secrets, now: now())
            guard proven == userID else {
                throw .forbidden(
                    "device \(device.token.prefix(8))… belongs to user \(userID) and the userToken is for user "
                        + "\(proven): \(change) needs \(userID)'s userToken, or the app's API key\(remedy)")
            }
        } else if device.publicKey != nil {
            throw .forbidden(
                "device \(device.token.prefix(8))… has an end-to-end key: \(change) needs the app's API key")
        }
    }

    /// The most registrations one `POST /v1/devices/import` takes (in one transaction).
    package static let importLimit = 100_000

    /// The body of `POST /v1/devices/import`: registrations moved from another provider, at most ``importLimit`` a
    /// call.
    struct DeviceImport: StrictInput {
        var devices: [DeviceInput]

        enum CodingKeys: String, CodingKey, CaseIterable {
            case devices
        }

        static var fields: [String] { CodingKeys.allCases.map(\.rawValue) }
        static var nested: [String: any StrictInput.Type] { ["devices": DeviceInput.self] }

        /// Reads the request's body (at most 16 MB), checked as ``JSONCoding/decode(_:from:limit:)`` checks a body.
        /// The tree is let go of as it is read, each registration's part once it is a ``DeviceInput``, so a
        /// 100,000-device body is not held twice (as JSON and as registrations) at its end.
        init(from request: Request) async throws {
            var tree = try JSONCoding.checkedTree(
                Self.self, from: try await JSONCoding.body(of: request, limit: 16 << 20))
            guard case .array(var values)? = tree["devices"] else {
                throw ProviderError.invalid(
                    field: "devices", message: tree["devices"] == nil ? "is required" : "must be an array")
            }
            tree = .null
            devices = []
            devices.reserveCapacity(values.count)
            for index in values.indices {
                devices.append(try DeviceInput(json: values[index], field: "devices[\(index)]"))
                values[index] = .null
            }
        }
    }

    /// The first problem with a registration, as a field and a message.
    static func problem(with input: DeviceInput, for app: StoredApp) -> (field: String, message: String)? {
        do {
            try check(input, for: app)
            return nil
        } catch {
            return (error.field ?? "", error.message)
        }
    }

    /// Checks a registration against the app it is for.
    static func check(_ input: DeviceInput, for app: StoredApp) throws(ProviderError) {
        try input.check(bundleID: app.app.bundleID, environment: app.app.environment)
    }
}
