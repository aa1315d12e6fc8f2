import APNSCore
import AsyncHTTPClient
import Foundation
import HeraldSupport
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import UserNotifications

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
        let (status, headers, data) = try await fetch(url)
        guard (200..<300).contains(status) else {
            throw ServiceExtensionStepError("downloading \(url) answered HTTP \(status)")
        }
        let mimeType = headers.first(name: "content-type")?.split(separator: ";").first
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

    /// The most redirects a download follows.
    static let redirectLimit = 5

    /// GETs `url`, following redirects only to addresses the policy allows, each connection pinned to the address
    /// checked (``OutboundTarget``); the status, headers and body of the last answer. Cancelling the step cancels it.
    private func fetch(_ url: URL) async throws(ServiceExtensionStepError) -> (Int, HTTPHeaders, Data) {
        var current = url
        /// How the download got to `current`, when a redirect did: said with a refusal of it.
        var redirect: String?
        for _ in 0...Self.redirectLimit {
            let target: OutboundTarget
            do throws(OutboundRefusal) {
                target = try await policy.target(for: current)
            } catch {
                throw ServiceExtensionStepError("\(redirect ?? "\(url)"): \(error.message)")
            }
            let response = try await get(current, pinnedTo: target)
            guard (300..<400).contains(response.0), let location = response.1.first(name: "location") else {
                return response
            }
            redirect = "downloading \(url) answered HTTP \(response.0) to \(location), which is not followed"
            guard let next = URL(string: location, relativeTo: current)?.absoluteURL,
                ["http", "https"].contains(next.scheme?.lowercased() ?? "")
            else {
                throw ServiceExtensionStepError("\(redirect ?? ""): not an http or https URL")
            }
            current = next
        }
        throw ServiceExtensionStepError("downloading \(url) was redirected more than \(Self.redirectLimit) times")
    }

    /// One GET, connected to the address checked, reading at most the largest attachment's size.
    private func get(_ url: URL, pinnedTo target: OutboundTarget) async throws(ServiceExtensionStepError) -> (
        Int, HTTPHeaders, Data
    ) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(30)))
        configuration.dnsOverride = target.dnsOverride
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { Task { try? await client.shutdown() } }
        do {
            let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: AttachmentKind.movie.maximumSize)
            return (Int(response.status.code), response.headers, Data(buffer: body))
        } catch is NIOTooManyBytesError {
            throw ServiceExtensionStepError(
                "\(url) is over \(AttachmentKind.movie.maximumSize) bytes, more than any attachment may be")
        } catch {
            throw ServiceExtensionStepError("\(url): \(error)")
        }
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
