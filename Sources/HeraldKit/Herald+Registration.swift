import Crypto
public import Foundation

/// What an app tells its provider about the device besides the token.
public struct DeviceRegistration: Sendable, Hashable, Codable {
    /// The signed-in user, with the token the app's server got for them (`POST /v1/users/{id}/token`).
    public var userID: String?
    public var userToken: String?
    /// The device's tags (a send can target them); nil keeps the provider's.
    public var tags: [String]?
    /// The locale and time zone (the current ones by default), and the app's version.
    public var locale: String?
    public var timeZone: String?
    public var appVersion: String?
    /// Whether the app's end-to-end public key is registered: nil (the default) with a signed-in user only, true
    /// always, false never. A keyed device with no user can be bound to a user later only with the API key, so an
    /// app that signs users in registers its key with them.
    public var registersEndToEndKey: Bool?

    public init(
        userID: String? = nil, userToken: String? = nil, tags: [String]? = nil,
        locale: String? = Locale.current.identifier, timeZone: String? = TimeZone.current.identifier,
        appVersion: String? = Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String,
        registersEndToEndKey: Bool? = nil
    ) {
        self.registersEndToEndKey = registersEndToEndKey
        self.userID = userID
        self.userToken = userToken
        self.tags = tags
        self.locale = locale
        self.timeZone = timeZone
        self.appVersion = appVersion
    }
}

extension Herald {
    /// What the last successful registration was, kept in the shared folder (the service extension reads the
    /// token from it).
    struct SavedRegistration: Codable {
        var token: String
        var registration: DeviceRegistration
    }

    /// The device token last registered, as hex.
    public var registeredToken: String? { savedRegistration?.token }

    var savedRegistration: SavedRegistration? { registrationFile.load() }

    /// From `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`: registers the token with the
    /// provider. When APNs handed out a new token the old one is named (`replaces`) so the provider retires it;
    /// with a signed-in user the app's end-to-end public key is registered too.
    ///
    /// - Throws: ``HeraldError/badDeviceToken(_:)`` for a token of 0 or more than 100 bytes;
    ///   ``HeraldError/refused(status:message:)`` or ``HeraldError/unavailable(_:)`` from the provider (call again
    ///   later: at the next launch iOS hands the token again).
    public func register(deviceToken: Data, _ registration: DeviceRegistration = DeviceRegistration())
        async throws(HeraldError)
    {
        guard !deviceToken.isEmpty, deviceToken.count <= 100 else {
            throw .badDeviceToken("APNs tokens are 1 to 100 bytes; this one is \(deviceToken.count)")
        }
        let token = deviceToken.map { String(format: "%02x", $0) }.joined()
        let previous = savedRegistration?.token
        var fields: [String: Any] = ["token": token]
        fields["bundleID"] = configuration.bundleID
        fields["environment"] = configuration.environment
        fields["userID"] = registration.userID
        fields["userToken"] = registration.userToken
        fields["tags"] = registration.tags
        fields["locale"] = registration.locale
        fields["timeZone"] = registration.timeZone
        fields["appVersion"] = registration.appVersion
        if registration.registersEndToEndKey ?? (registration.userToken != nil) {
            fields["publicKey"] = try endToEndKey().publicKey.rawRepresentation.base64EncodedString()
        }
        if let previous, previous != token {
            var replacing = fields
            replacing["replaces"] = previous
            do {
                try await postRegistration(replacing)
                try save(SavedRegistration(token: token, registration: registration))
                return
            } catch .refused(let status, let message) where status == 403 || status == 404 {
                // Data restored from another phone names a token this device cannot speak for: register alone.
                problemLog.add(.refused(status: status, message: "the old token was not retired: \(message)"))
            }
        }
        try await postRegistration(fields)
        try save(SavedRegistration(token: token, registration: registration))
    }

    /// Signs the user out: the device is deleted at the provider with the user's token (so no push for them reaches
    /// it any more) and registered again without a user.
    ///
    /// - Throws: ``HeraldError/configuration(_:)`` when no device was registered; the provider's refusal otherwise.
    public func signOut() async throws(HeraldError) {
        guard let saved = savedRegistration, let bytes = Self.bytes(hex: saved.token) else {
            throw .configuration("no device is registered: nothing to sign out")
        }
        var headers: [String: String] = [:]
        headers["X-Herald-User-Token"] = saved.registration.userToken
        _ = try await connection.send("DELETE", "devices/\(saved.token)", headers: headers)
        var anonymous = saved.registration
        anonymous.userID = nil
        anonymous.userToken = nil
        try await register(deviceToken: bytes, anonymous)
    }

    private func postRegistration(_ fields: [String: Any]) async throws(HeraldError) {
        let body: Data
        do {
            body = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        } catch {
            throw .configuration("the registration is not JSON: \(error)")
        }
        let answer = try await connection.send("POST", "devices", json: body)
        if answer.status == 404 {
            throw .refused(status: 404, message: "the provider has no /v1/devices: check the provider URL")
        }
    }

    private func save(_ saved: SavedRegistration) throws(HeraldError) {
        try registrationFile.save(saved)
    }

    static func bytes(hex: String) -> Data? {
        guard hex.count.isMultiple(of: 2) else { return nil }
        var data = Data(capacity: hex.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            data.append(byte)
            index = next
        }
        return data
    }
}
