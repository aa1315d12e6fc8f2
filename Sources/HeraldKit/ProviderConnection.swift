// URLSession is in Foundation on Apple platforms and in FoundationNetworking elsewhere: this file is the only one in
// HeraldKit that talks to the network, so it is the only one that needs the second import.
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP requests to the provider with the publishable key: JSON in, status and JSON out, a failure typed.
struct ProviderConnection: Sendable {
    let baseURL: URL
    let publishableKey: String
    let session: URLSession

    /// What the provider answered.
    struct Answer: Sendable {
        var status: Int
        var body: Data
        var etag: String?
    }

    init(configuration: HeraldConfiguration) {
        baseURL = configuration.providerURL
        publishableKey = configuration.publishableKey
        session = Self.sharedSession
    }

    /// One session per process (an app has one Herald; a simulated fleet has thousands, which must not each hold a
    /// session and its connections): no cookies or cache, 30 s per request, and up to 16 connections to the provider
    /// (an app uses one or two; a fleet of 10,000 simulated phones in one process sent 260 receipts a second through
    /// the default 6).
    private static let sharedSession: URLSession = {
        let settings = URLSessionConfiguration.ephemeral
        settings.timeoutIntervalForRequest = 30
        settings.httpMaximumConnectionsPerHost = 16
        return URLSession(configuration: settings)
    }()

    /// Sends one request to `/v1/<path>`.
    ///
    /// - Returns: the answer for any 2xx, `304` and `404` status (the caller decides what 404 means).
    /// - Throws: ``HeraldError/unavailable(_:)`` for a network failure, `408`, `429` or a `5xx` status (worth
    ///   retrying); ``HeraldError/refused(status:message:)`` for the other statuses, with the provider's message.
    func send(
        _ method: String, _ path: String, json body: Data? = nil, headers: [String: String] = [:]
    ) async throws(HeraldError) -> Answer {
        var request = URLRequest(url: baseURL.appendingPathComponent("v1").appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("Bearer \(publishableKey)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .unavailable("\(method) \(request.url?.absoluteString ?? path): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let etag = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag")
        switch status {
        case 200..<300, 304, 404: return Answer(status: status, body: data, etag: etag)
        case 408, 429, 500...: throw .unavailable("\(method) /v1/\(path) answered \(status)")
        default: throw .refused(status: status, message: Self.message(in: data) ?? "HTTP \(status)")
        }
    }

    /// The provider's error message: `{"error": {"field": ..., "message": ...}}`.
    static func message(in body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let error = object["error"] as? [String: Any], let message = error["message"] as? String
        else { return nil }
        return (error["field"] as? String).map { "\($0): \(message)" } ?? message
    }
}
