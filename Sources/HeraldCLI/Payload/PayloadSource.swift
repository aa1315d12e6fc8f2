import APNSCore
import Foundation

/// A payload read from a file or standard input, as `herald` will send it.
struct PayloadSource {
    /// How the source is named in messages.
    let name: String
    /// The bytes as read.
    let raw: Data
    /// The payload, when the bytes are a JSON object.
    let payload: Result<APNSPayload, APNSPayloadError>
    /// For a `.apns` file, the app named by `Simulator Target Bundle`.
    let targetBundleID: String?

    /// Reads `path` (`-` for standard input). A `.apns` file, or any payload with `Simulator Target Bundle`, is read
    /// as Xcode's simulator reads it.
    ///
    /// - Throws: ``UsageError`` when the file cannot be read.
    init(path: String, io: CommandIO) throws(UsageError) {
        if path == "-" {
            name = "<stdin>"
            raw = io.readInput()
        } else {
            name = path
            do {
                raw = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw UsageError("cannot read \(path): \((error as NSError).localizedDescription)")
            }
        }
        do {
            let file = try APNSSimulatorFile(data: raw)
            payload = .success(file.payload)
            targetBundleID = file.targetBundleID
        } catch {
            payload = .failure(error)
            targetBundleID = nil
        }
    }

    /// The exact bytes `herald` sends: the payload as compact JSON, or the raw bytes when they are not a payload.
    var body: Data {
        (try? payload.get().encoded()) ?? raw
    }
}
