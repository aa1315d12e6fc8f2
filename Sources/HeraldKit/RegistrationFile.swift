import Foundation

/// The last successful registration, kept in the shared folder (the service extension reads the device token from
/// it), read again only when the file changed: a receipt needs the token, and decoding the file at each one cost a
/// service extension time for nothing.
// Safety: `cached` is read and written only under `lock`; `url` is immutable.
final class RegistrationFile: @unchecked Sendable {
    let url: URL
    private let lock = NSLock()
    private var cached: (modified: Date, value: Herald.SavedRegistration)?

    init(url: URL) {
        self.url = url
    }

    /// The registration kept, or nil when the app never registered.
    func load() -> Herald.SavedRegistration? {
        guard let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
        else { return nil }
        if let cached = lock.withLock({ cached }), cached.modified == modified { return cached.value }
        guard let data = try? Data(contentsOf: url),
            let value = try? JSONDecoder().decode(Herald.SavedRegistration.self, from: data)
        else { return nil }
        lock.withLock { cached = (modified, value) }
        return value
    }

    /// Keeps `value`.
    ///
    /// - Throws: ``HeraldError/storage(_:)`` when the file cannot be written.
    func save(_ value: Herald.SavedRegistration) throws(HeraldError) {
        do {
            try JSONEncoder().encode(value).write(to: url, options: .atomic)
        } catch {
            throw .storage("the registration was sent but not kept at \(url.path): \(error)")
        }
        lock.withLock { cached = nil }
    }
}
