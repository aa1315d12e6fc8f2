import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// POSTs JSON bodies to a provider's URL (registrations and reports).
struct JSONPoster: Sendable {
    let url: URL

    /// What the provider answered a report.
    enum Answer: Sendable, Equatable {
        /// A 2xx status.
        case accepted
        /// `404`: the provider has no such delivery (the push did not come through it).
        case unknown
    }

    /// Sends `body`.
    ///
    /// - Returns: ``Answer/accepted`` for a 2xx status, ``Answer/unknown`` for 404.
    /// - Throws: ``DeviceError`` for any other status or a network error, saying what happened.
    @discardableResult
    func post(_ body: Data) async throws(DeviceError) -> Answer {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let url = self.url
        let outcome: Result<Answer, DeviceError> = await withCheckedContinuation { continuation in
            URLSession.shared.dataTask(with: request) { _, response, error in
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                if let error {
                    continuation.resume(
                        returning: .failure(DeviceError("POST \(url) failed: \(error.localizedDescription)")))
                } else if (200..<300).contains(status) {
                    continuation.resume(returning: .success(.accepted))
                } else if status == 404 {
                    continuation.resume(returning: .success(.unknown))
                } else {
                    continuation.resume(returning: .failure(DeviceError("POST \(url) answered HTTP \(status)")))
                }
            }.resume()
        }
        return try outcome.get()
    }
}
