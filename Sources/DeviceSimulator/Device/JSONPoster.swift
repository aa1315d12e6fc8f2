import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// POSTs JSON bodies to a provider's URL (registrations and reports).
struct JSONPoster: Sendable {
    let url: URL

    /// Sends `body`; a status other than 2xx or a network error is thrown with what happened.
    func post(_ body: Data) async throws(DeviceError) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let url = self.url
        let failure: String? = await withCheckedContinuation { continuation in
            URLSession.shared.dataTask(with: request) { _, response, error in
                if let error {
                    continuation.resume(returning: "POST \(url) failed: \(error.localizedDescription)")
                } else if let status = (response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
                    continuation.resume(returning: "POST \(url) answered HTTP \(status)")
                } else {
                    continuation.resume(returning: nil)
                }
            }.resume()
        }
        if let failure { throw DeviceError(failure) }
    }
}
