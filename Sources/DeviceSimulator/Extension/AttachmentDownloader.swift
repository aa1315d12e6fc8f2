import APNSCore
import Foundation
import Synchronization
import UserNotifications

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads a media URL into a file an attachment can be made from, with the rules iOS applies to attachments: a
/// supported image, audio or movie type (from the `Content-Type`, else the URL's extension) within its size limit.
struct AttachmentDownloader: Sendable {
    /// Where downloaded files are written before the center moves them into its store.
    let folder: URL
    /// Which addresses a download may reach.
    let policy: OutboundPolicy

    /// Downloads `url` and makes an attachment named `identifier`.
    ///
    /// - Throws: ``ServiceExtensionStepError`` saying why there is no attachment (HTTP status, type, size, network).
    func attachment(from url: URL, identifier: String) async throws(ServiceExtensionStepError)
        -> UNNotificationAttachment
    {
        guard ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw ServiceExtensionStepError("\(url) is not an http or https URL")
        }
        if let problem = await policy.checkResolved(url) { throw ServiceExtensionStepError("\(url): \(problem)") }
        let (data, response) = try await fetch(url)
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            throw ServiceExtensionStepError("downloading \(url) answered HTTP \(status)")
        }
        let mimeType = http.value(forHTTPHeaderField: "Content-Type")?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let fileExtension = mimeType.flatMap({ Self.extensions[$0] }) ?? Self.knownExtension(of: url) else {
            throw ServiceExtensionStepError(
                "\(url) is \(mimeType ?? "of no declared type"), not a supported image, audio or movie type")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("\(UUID().uuidString).\(fileExtension)")
            try data.write(to: file, options: .atomic)
            do {
                return try UNNotificationAttachment(identifier: identifier, url: file, options: nil)
            } catch {
                try? FileManager.default.removeItem(at: file)
                throw error
            }
        } catch let error as UNError {
            throw ServiceExtensionStepError("\(url): \(error.message)")
        } catch {
            throw ServiceExtensionStepError("\(url) could not be saved: \(error)")
        }
    }

    private func fetch(_ url: URL) async throws(ServiceExtensionStepError) -> (Data, URLResponse) {
        let box = DownloadTaskBox()
        let result: Result<(Data, URLResponse), ServiceExtensionStepError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Each redirect is checked against the policy too: a public URL may not bounce the device inward.
                let session = URLSession(
                    configuration: .ephemeral, delegate: RedirectPolicy(policy: policy), delegateQueue: nil)
                let task = session.dataTask(with: url) { data, response, error in
                    if let data, let response {
                        continuation.resume(returning: .success((data, response)))
                    } else {
                        let reason = error.map { "\($0.localizedDescription)" } ?? "no response"
                        continuation.resume(returning: .failure(ServiceExtensionStepError("\(url): \(reason)")))
                    }
                }
                box.start(task)
                session.finishTasksAndInvalidate()
            }
        } onCancel: {
            box.cancel()
        }
        return try result.get()
    }

    /// File extensions for the MIME types of supported attachments.
    static let extensions: [String: String] = [
        "image/jpeg": "jpg", "image/jpg": "jpg", "image/png": "png", "image/gif": "gif",
        "audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/aiff": "aiff",
        "audio/x-aiff": "aiff", "audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav",
        "video/mp4": "mp4", "video/x-m4v": "m4v", "video/mpeg": "mpg", "video/avi": "avi", "video/x-msvideo": "avi",
    ]

    private static func knownExtension(of url: URL) -> String? {
        let pathExtension = url.pathExtension.lowercased()
        return Set(extensions.values).contains(pathExtension) || ["jpeg", "mpeg"].contains(pathExtension)
            ? pathExtension : nil
    }
}

/// Follows a redirect only to an address the policy allows; otherwise the 3xx itself is the answer (not 2xx: no
/// attachment).
private final class RedirectPolicy: NSObject, URLSessionTaskDelegate, Sendable {
    private let policy: OutboundPolicy

    init(policy: OutboundPolicy) {
        self.policy = policy
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let allowed = request.url.map { policy.resolvedProblem(with: $0) == nil } ?? false
        completionHandler(allowed ? request : nil)
    }
}

/// The running download, so cancelling the step cancels it.
private final class DownloadTaskBox: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var cancelled = false
    }

    private let state = Mutex(State())

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock {
            $0.task = task
            return $0.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock {
            $0.cancelled = true
            return $0.task
        }
        task?.cancel()
    }
}
