import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Plain HTTP calls for the API tests.
enum HTTP {
    static func call(_ method: String, _ url: String, body: String? = nil) async throws -> (Data, Int) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                continuation.resume(returning: (data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0))
            }.resume()
        }
    }
}
