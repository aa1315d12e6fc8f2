import APNSCore
import Foundation
import HeraldConsole
import NIOHTTP1
import ProviderStorage
import PushProvider

/// Finds what an id names, at the provider and at the local APNs running from this folder (when there is one).
struct WhyLookup {
    enum Found {
        case delivery(DeliveryTrace, DeliveryVerdict)
        /// A push the provider did not send, known to the local APNs only.
        case gatewayOnly(apnsID: String, token: String?, DeliveryVerdict)
        case notification(NotificationBreakdown, [DeliveryTrace])
        /// The provider sent it and pruned its record (retention); the text says when and what remains.
        case pruned(String)
        /// Nothing has it; the text says where it looked.
        case unknown(String)
    }

    private let provider: (url: String, token: String)?
    private let gateway: (url: String, token: String, caPEM: String?)?
    private let providerClient: ConsoleHTTPClient
    private let gatewayClient: ConsoleHTTPClient?
    /// The apps to look in: the one given, else every app of the provider (an id belongs to one of them).
    private let apps: [String]

    init(services: ServiceOptions, app: String?) async throws {
        provider = try? services.provider()
        gateway = try? services.gateway()
        guard provider != nil || gateway != nil else {
            throw CommandFailure(
                "no provider or local APNs found from this folder",
                next: "run it where herald up runs, or give --provider URL --provider-token-file FILE")
        }
        let providerClient = try ConsoleHTTPClient(caPEM: nil)
        var chosen = app.map { [$0] } ?? []
        do {
            if let provider, app == nil {
                let call = ServiceCall(client: providerClient, base: provider.url, token: provider.token)
                chosen = try await call.get("/v1/apps").array?.compactMap { $0["id"]?.string } ?? []
            }
            gatewayClient = try gateway.map { try ConsoleHTTPClient(caPEM: $0.caPEM) }
        } catch {
            // A client must be shut down before it goes away.
            await providerClient.shutdown()
            throw error
        }
        self.providerClient = providerClient
        apps = chosen
    }

    func shutdown() async {
        await providerClient.shutdown()
        await gatewayClient?.shutdown()
    }

    func find(_ id: String) async throws -> Found {
        let lowered = id.lowercased()
        var searched: [String] = []
        if provider != nil {
            do {
                if let trace = try await providerGet("/v1/deliveries/\(lowered)", as: DeliveryTrace.self) {
                    return .delivery(trace, try await verdict(of: trace))
                }
            } catch let pruned as Pruned {
                return .pruned(pruned.message)
            }
            if let breakdown = try await providerGet(
                "/v1/notifications/\(id.uppercased())/breakdown", as: NotificationBreakdown.self)
            {
                return .notification(breakdown, try await devices(of: id, verdict: nil, limit: 20))
            }
            searched.append("the provider has no delivery or notification with it")
        }
        if gateway != nil {
            for name in ["apns-unique-id", "apns-id"] {
                guard let entry = try await gatewayLog(name, lowered), let apnsID = entry["apns-id"]?.string else {
                    continue
                }
                if name == "apns-unique-id", provider != nil,
                    let trace = try await providerGet("/v1/deliveries/\(apnsID.lowercased())", as: DeliveryTrace.self)
                {
                    return .delivery(trace, try await verdict(of: trace))
                }
                let log = GatewayLogEntry(json: entry) ?? GatewayLogEntry(events: [])
                return .gatewayOnly(apnsID: apnsID, token: entry["token"]?.string, DeliveryVerdict.of(gateway: log))
            }
            searched.append("the local APNs' log has no push with it as apns-id or apns-unique-id")
        }
        return .unknown(searched.joined(separator: "; "))
    }

    /// A notification's devices with their verdicts (of one kind when `verdict` is given).
    func devices(of id: String, verdict: String?, limit: Int) async throws -> [DeliveryTrace] {
        var path = "/v1/notifications/\(id.uppercased())/verdicts?limit=\(limit)"
        if let verdict {
            path += "&verdict=\(verdict.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        }
        struct Page: Decodable { var deliveries: [DeliveryTrace] }
        guard let page = try await providerGet(path, as: Page.self) else { return [] }
        var refined: [DeliveryTrace] = []
        for var trace in page.deliveries {
            trace.verdict = try await self.verdict(of: trace)
            refined.append(trace)
        }
        return refined
    }

    /// The provider's verdict, with the local APNs' log when the device has not reported.
    private func verdict(of trace: DeliveryTrace) async throws -> DeliveryVerdict {
        let known = trace.verdict ?? DeliveryVerdict.of(trace, now: Date())
        guard known.verdict == DeliveryVerdict.Kind.awaitingDevice.rawValue,
            let entry = try await gatewayLog("apns-id", trace.apnsID.lowercased()).flatMap(GatewayLogEntry.init(json:))
        else { return known }
        return DeliveryVerdict.of(trace, gateway: entry, now: Date())
    }

    /// The provider answered 410: it had the record, and pruned it.
    private struct Pruned: Error {
        var message: String
    }

    /// `path` of the first app that has it.
    private func providerGet<T: Decodable>(_ path: String, as type: T.Type) async throws -> T? {
        for app in apps {
            if let found = try await providerGet(path, app: app, as: type) { return found }
        }
        return nil
    }

    private func providerGet<T: Decodable>(_ path: String, app: String, as type: T.Type) async throws -> T? {
        guard let provider else { return nil }
        let separator = path.contains("?") ? "&" : "?"
        let appQuery = "\(separator)app=\(app.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? app)"
        guard let url = URL(string: provider.url + path + appQuery) else { return nil }
        let answer: ConsoleHTTPClient.Answer
        do {
            answer = try await providerClient.send(.GET, url, bearer: provider.token)
        } catch {
            throw CommandFailure("cannot reach the provider at \(provider.url): \(error)", next: "is it running?")
        }
        if answer.status == 404 || answer.status == 400 { return nil }
        if answer.status == 410 {
            throw Pruned(message: (try? JSONValue(parsing: answer.body))?["error"]?["message"]?.string ?? "pruned")
        }
        guard answer.status == 200 else {
            let message = (try? JSONValue(parsing: answer.body))?["error"]?["message"]?.string ?? ""
            throw CommandFailure("\(url.absoluteString) answered \(answer.status): \(message)")
        }
        return try WhyRendering.decoder.decode(T.self, from: answer.body)
    }

    private func gatewayLog(_ name: String, _ value: String) async throws -> JSONValue? {
        guard let gateway, let gatewayClient,
            let url = URL(string: "\(gateway.url)/admin/deliveries?\(name)=\(value)")
        else { return nil }
        guard let answer = try? await gatewayClient.send(.GET, url, bearer: gateway.token), answer.status == 200 else {
            return nil
        }
        return try? JSONValue(parsing: answer.body)
    }
}
