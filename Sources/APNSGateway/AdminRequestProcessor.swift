import APNSCore
import Foundation

/// The admin API: make device tokens for apps that have not connected yet, and remove apps.
///
/// - `POST /admin/devices` `{"topic": "com.example.app", "environment": "development"}` → `201 {"token": "<hex>"}`
/// - `DELETE /admin/devices/<token>` → `204`; later pushes get `410 Unregistered` with this time.
struct AdminRequestProcessor: Sendable {
    let registry: DeviceRegistry
    let now: @Sendable () -> Date

    func process(_ request: ProviderRequest) async -> (status: Int, body: [UInt8]?) {
        let path = request.path ?? ""
        switch (request.method, path) {
        case ("POST", "/admin/devices"):
            return register(request.body)
        case ("DELETE", _) where path.hasPrefix("/admin/devices/"):
            guard let token = try? APNSDeviceToken(hex: String(path.dropFirst("/admin/devices/".count))),
                registry.unregister(token, at: now())
            else { return error(404, "no device has this token") }
            return (204, nil)
        default:
            return error(404, "no admin endpoint \(request.method ?? "") \(path); see docs/gateway.md")
        }
    }

    private func register(_ body: [UInt8]) -> (status: Int, body: [UInt8]?) {
        guard let object = try? JSONValue(parsing: Data(body)), let topic = object["topic"]?.string else {
            return error(400, "send {\"topic\": \"<bundle ID>\", \"environment\": \"development\" or \"production\"}")
        }
        if let problem = APNSTopic.problem(with: topic) { return error(400, problem) }
        let environmentName = object["environment"]?.string ?? "development"
        guard let environment = APNSEnvironment(name: environmentName) else {
            return error(400, "environment '\(environmentName)' is not development or production")
        }
        let device = registry.register(bundleID: topic, environment: environment)
        return (201, Array(JSONValue.object(JSONObject([(key: "token", value: .string(device.token.hex))])).encoded()))
    }

    private func error(_ status: Int, _ message: String) -> (status: Int, body: [UInt8]?) {
        (status, Array(JSONValue.object(JSONObject([(key: "error", value: .string(message))])).encoded()))
    }
}
