import APNSCore
import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import ProviderStorage
import PushProvider

extension ConsoleRoutes {
    func addDeviceRoutes(to router: Router<ProviderRequestContext>) {
        router.get("console/api/simulators") { request, _ -> Response in
            let session = try await requireSession(request)
            var answer: [JSONValue] = []
            for (index, url) in console.deviceAPIs.enumerated() {
                var entry = JSONObject([("index", .number(JSONNumber(index))), ("url", .string(url.absoluteString))])
                do {
                    let allowed = try await visibleBundleIDs(session, device: index)
                    entry["apps"] = .array(visible(try await deviceJSON(index, "apps"), allowed: allowed))
                } catch {
                    entry["error"] = .string("the device at \(url.absoluteString) does not answer: \(error)")
                }
                answer.append(.object(entry))
            }
            return ConsoleRequest.json(JSONValue.array(answer).encoded())
        }
        router.get("console/api/simulators/:index/notifications") { request, context -> Response in
            let session = try await requireSession(request)
            let index = try deviceIndex(context)
            let allowed = try await visibleBundleIDs(session, device: index)
            let list = visible(try await deviceJSON(index, "notifications"), allowed: allowed)
            return ConsoleRequest.json(JSONValue.array(list).encoded())
        }
        router.get("console/api/simulators/:index/pending") { request, context -> Response in
            let session = try await requireSession(request)
            let index = try deviceIndex(context)
            let allowed = try await visibleBundleIDs(session, device: index)
            let list = visible(try await deviceJSON(index, "pending"), allowed: allowed)
            return ConsoleRequest.json(JSONValue.array(list).encoded())
        }
        router.get("console/api/simulators/:index/notifications/:id") { request, context -> Response in
            let session = try await requireSession(request)
            let index = try deviceIndex(context)
            let id = try context.parameters.decoded("id")
            try await requireVisible(index: index, id: id, session: session)
            let answer = try await device(index, .GET, "notifications/\(Self.segment(id))")
            return ConsoleRequest.json(answer.body, status: .init(code: answer.status))
        }
        router.post("console/api/simulators/:index/notifications/:id/respond") { request, context -> Response in
            let session = try await requireSession(request)
            let index = try deviceIndex(context)
            let id = try context.parameters.decoded("id")
            try await requireVisible(index: index, id: id, session: session)
            let body = try await JSONCoding.body(of: request, limit: 16 << 10)
            let answer = try await device(
                index, .POST, "notifications/\(Self.segment(id))/respond", body: body)
            return ConsoleRequest.json(answer.body, status: .init(code: answer.status))
        }
        router.get("console/api/simulators/:index/notifications/:id/attachments/:identifier") {
            request, context -> Response in
            let session = try await requireSession(request)
            let index = try deviceIndex(context)
            let id = try context.parameters.decoded("id")
            let identifier = try context.parameters.decoded("identifier")
            try await requireVisible(index: index, id: id, session: session)
            let answer = try await device(
                index, .GET, "notifications/\(Self.segment(id))/attachments/\(Self.segment(identifier))")
            var headers = ConsoleRequest.securityHeaders
            headers[.contentType] = answer.contentType ?? "application/octet-stream"
            headers[.cacheControl] = "private, max-age=3600"
            return Response(
                status: .init(code: answer.status), headers: headers,
                body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
    }

    /// The device index in the path, checked against the devices configured.
    func deviceIndex(_ context: ProviderRequestContext) throws -> Int {
        let text = try context.parameters.decoded("index")
        guard let index = Int(text), console.deviceAPIs.indices.contains(index) else {
            throw ProviderError.notFound("the console shows no simulated device \(text)")
        }
        return index
    }

    /// One call to simulated device `index`'s API.
    func device(_ index: Int, _ method: HTTPMethod, _ path: String, body: Data? = nil) async throws(ProviderError)
        -> ConsoleHTTPClient.Answer
    {
        let base = console.deviceAPIs[index].absoluteString
        guard let url = URL(string: (base.hasSuffix("/") ? base : base + "/") + path) else {
            throw .invalid(field: nil, message: "\(path) is not a path on the device")
        }
        do {
            return try await console.deviceClient.send(method, url, body: body)
        } catch {
            throw .notFound("the simulated device at \(url.absoluteString) does not answer: \(error)")
        }
    }

    /// A JSON array from simulated device `index`.
    func deviceJSON(_ index: Int, _ path: String) async throws(ProviderError) -> [JSONValue] {
        let answer = try await device(index, .GET, path)
        guard answer.status == 200, let list = (try? JSONValue(parsing: answer.body))?.array else {
            throw .notFound("the simulated device answered \(answer.status) to GET /\(path)")
        }
        return list
    }

    /// The longest one `GET /changes` to a device waits: under the console's client's read timeout (10 s).
    static let deviceChangeWait = 8

    /// Simulated device `index`'s count of changes of what it shows: at once when `after` is `nil`, else once it
    /// differs from `after` or `upTo` has passed (in waits of at most ``deviceChangeWait`` seconds each). `nil` when
    /// the device does not answer, after a second, so a device that is down is not asked in a tight loop.
    func deviceChanges(_ index: Int, after: Int?, upTo: Duration) async -> Int? {
        let end = ContinuousClock.now + upTo
        while true {
            let left = max(0, Int((end - ContinuousClock.now).components.seconds))
            let wait = after == nil ? 0 : min(left, Self.deviceChangeWait)
            let query = after.map { "changes?after=\($0)&wait=\(wait)" } ?? "changes"
            guard let answer = try? await device(index, .GET, query), answer.status == 200,
                let count = (try? JSONValue(parsing: answer.body))?["changes"]?.number?.intValue
            else {
                try? await Task.sleep(for: .seconds(1))
                return nil
            }
            if count != after || wait == 0 || Task.isCancelled { return count }
        }
    }

    /// The entries (apps or notifications, each with a `bundleID`) of the bundle IDs `allowed` (``visibleBundleIDs(_:device:)``;
    /// `nil` for all).
    func visible(_ list: [JSONValue], allowed: Set<String>?) -> [JSONValue] {
        guard let allowed else { return list }
        return list.filter { $0["bundleID"]?.string.map(allowed.contains) ?? false }
    }

    /// Throws unless notification `id` on device `index` belongs to an app the session may see.
    func requireVisible(index: Int, id: String, session: ConsoleSessions.Session) async throws(ProviderError) {
        guard let allowed = try await visibleBundleIDs(session, device: index) else { return }
        let list = visible(try await deviceJSON(index, "notifications"), allowed: allowed)
        guard list.contains(where: { $0["id"]?.string == id }) else {
            throw .notFound("simulated device \(index) shows no notification \(id) of your app")
        }
    }

    /// A path segment, percent-encoded.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? text
    }
}
