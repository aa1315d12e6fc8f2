import APNSCore
import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// POSTs every user response to the app's own server (seed 003's reply loop), retrying a failed POST three times.
/// Before each POST the URL's host is looked up and checked against ``policy`` (public addresses only, unless
/// allowed), so a name that later points inside the provider's network is not followed.
struct WebhookSender: Sendable {
    let failures: FailureReporter
    let policy: OutboundPolicy

    /// The webhook body: `event`, `notificationID`, `deliveryID`, `apnsID`, `token`, `userID`, `action`, `text`,
    /// `time`.
    struct Body: Encodable {
        var event: String
        var notificationID: String
        var deliveryID: Int64
        var apnsID: String
        var token: String
        var userID: String?
        var action: String?
        var text: String?
        var time: String
    }

    /// Sends in the background; failures are logged.
    func send(_ body: Body, to url: URL) {
        let failures = failures
        let policy = policy
        Task.detached {
            if let problem = await policy.checkResolved(url) {
                failures.report(.webhook, "webhook refused", metadata: ["url": "\(url)", "why": "\(problem)"])
                return
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try? encoder.encode(body)
            // Webhooks follow no redirect: the URL checked is the URL called.
            let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            for attempt in 1...3 {
                if let (_, response) = try? await session.data(for: request),
                    let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status)
                {
                    return
                }
                try? await Task.sleep(for: .seconds(attempt))
            }
            failures.report(
                .webhook, "webhook did not answer 2xx after 3 attempts; the response is dropped",
                metadata: ["url": "\(url)", "event": "\(body.event)", "apns-id": "\(body.apnsID)"])
        }
    }
}

/// Answers every redirect with "do not follow", so the 3xx is the result (and counts as a failed POST).
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
