import APNSCore
import Foundation
import Hummingbird
import NIOHTTP1
import ProviderStorage
import PushProvider

extension ConsoleRoutes {
    func addTraceRoutes(to router: Router<ProviderRequestContext>) {
        router.get("console/api/trace") { request, _ -> Response in
            let session = try await requireSession(request)
            let query = request.uri.queryParameters
            var apnsID = query.get("apns-id")?.trimmingCharacters(in: .whitespaces).lowercased()
            var gatewayEntry: JSONValue?
            if apnsID == nil || apnsID == "" {
                guard let uniqueID = query.get("apns-unique-id")?.trimmingCharacters(in: .whitespaces),
                    !uniqueID.isEmpty
                else {
                    throw ProviderError.invalid(
                        field: "apns-id", message: "enter an apns-id or an apns-unique-id to look up")
                }
                guard UUID(uuidString: uniqueID) != nil else {
                    throw ProviderError.invalid(field: "apns-unique-id", message: "\(uniqueID) is not a UUID")
                }
                guard console.configuration.gateway != nil else {
                    throw ProviderError.invalid(
                        field: "apns-unique-id",
                        message:
                            "only the local gateway knows apns-unique-ids: run herald up, or herald serve --gateway-admin"
                    )
                }
                gatewayEntry = try await gatewayLog("apns-unique-id", uniqueID)
                apnsID = gatewayEntry?["apns-id"]?.string?.lowercased()
            }
            guard let apnsID, UUID(uuidString: apnsID) != nil else {
                throw ProviderError.invalid(field: "apns-id", message: "\(apnsID ?? "") is not a UUID")
            }
            var answer = JSONObject([("apnsID", .string(apnsID))])
            var providerTrace: DeliveryTrace?
            if let trace = try await provider.notifications.deliveryTrace(apnsID: apnsID),
                self.session(session, mayRead: trace.appID)
            {
                answer["provider"] = try JSONValue(parsing: JSONCoding.encoder.encode(trace))
                providerTrace = trace
            }
            if gatewayEntry == nil, console.configuration.gateway != nil {
                gatewayEntry = try await gatewayLog("apns-id", apnsID)
            }
            if let entry = gatewayEntry,
                try await self.session(session, mayRead: entry, knownToProvider: answer["provider"] != nil)
            {
                answer["gateway"] = entry
            }
            var devices: [JSONValue] = []
            for index in console.deviceAPIs.indices {
                guard let answer = try? await device(index, .GET, "events?apns-id=\(apnsID)"), answer.status == 200,
                    let events = (try? JSONValue(parsing: answer.body))?.array,
                    !events.isEmpty
                else { continue }
                // A device that cannot say which of its apps the session may see shows it nothing.
                let allowed: Set<String>?
                do {
                    allowed = try await visibleBundleIDs(session, device: index)
                } catch {
                    continue
                }
                let shown = visible(events, allowed: allowed)
                if !shown.isEmpty {
                    devices.append(
                        .object(JSONObject([("index", .number(JSONNumber(index))), ("events", .array(shown))])))
                }
            }
            answer["devices"] = .array(devices)
            guard answer["provider"] != nil || answer["gateway"] != nil || !devices.isEmpty else {
                throw ProviderError.notFound(
                    "no notification with apns-id \(apnsID) is known to the provider, the gateway or the devices")
            }
            let log = answer["gateway"].flatMap(GatewayLogEntry.init(json:))
            let verdict =
                providerTrace.map { DeliveryVerdict.of($0, gateway: log, now: provider.now()) }
                ?? log.map { DeliveryVerdict.of(gateway: $0) }
            if let verdict { answer["verdict"] = try JSONValue(parsing: JSONCoding.encoder.encode(verdict)) }
            return ConsoleRequest.json(JSONValue.object(answer).encoded())
        }
    }

    /// Whether an app's session may see a gateway log entry: the admin sees every one, an app only those of a push
    /// the provider sent for it or of a token registered with it (the gateway's log holds every app's pushes).
    private func session(_ session: ConsoleSessions.Session, mayRead entry: JSONValue, knownToProvider: Bool)
        async throws(ProviderError) -> Bool
    {
        guard case .app(let app) = session.holder, !knownToProvider else { return true }
        guard let token = entry["token"]?.string else { return false }
        // A token of another app (the same bundle ID in the other environment) registered with this app's
        // publishable key proves nothing: the token's own app, as the gateway registered it, must be this one.
        guard entry["bundle-id"]?.string == app.bundleID, entry["environment"]?.string == app.environment else {
            return false
        }
        return try await provider.device(appID: app.id, token: token) != nil
    }

    /// The gateway's delivery log entry for one notification; `nil` when it has none.
    private func gatewayLog(_ name: String, _ value: String) async throws(ProviderError) -> JSONValue? {
        guard let gateway = console.configuration.gateway, let client = console.gatewayClient else { return nil }
        var components = URLComponents(url: gateway.url, resolvingAgainstBaseURL: false)
        components?.path = "/admin/deliveries"
        components?.queryItems = [URLQueryItem(name: name, value: value)]
        guard let url = components?.url else { return nil }
        do {
            let answer = try await client.send(.GET, url, bearer: gateway.adminToken)
            guard answer.status == 200 else { return nil }
            return try JSONValue(parsing: answer.body)
        } catch {
            throw .notFound("the gateway at \(gateway.url.absoluteString) does not answer: \(error)")
        }
    }
}
