import NIOCore
import NIOHPACK

/// A response as its frames arrive: the status and APNs' headers from HEADERS, the body from DATA. A broadcast's
/// `apns-request-id` stands where a device push's `apns-id` does.
struct ResponseParts {
    var status: Int?
    var apnsID: String?
    var uniqueID: String?
    /// A new channel's `apns-channel-id`.
    var channelID: String?
    var body: ByteBuffer?

    /// Bodies are read up to this size: 4 KiB for a push (APNs' error bodies are far smaller), 1 MiB for a channel
    /// request (the list of an app's up to 10,000 channels).
    let bodyLimit: Int

    init(bodyLimit: Int = 4096) {
        self.bodyLimit = bodyLimit
    }

    mutating func add(_ headers: HPACKHeaders) {
        for (name, value, _) in headers {
            switch name {
            case ":status": status = Int(value)
            case "apns-id", "apns-request-id": apnsID = value
            case "apns-unique-id": uniqueID = value
            case "apns-channel-id": channelID = value
            default: break
            }
        }
    }

    mutating func add(_ data: IOData) {
        guard case .byteBuffer(var buffer) = data, buffer.readableBytes > 0 else { return }
        if body == nil {
            body = buffer
        } else if body!.readableBytes < bodyLimit {
            body!.writeBuffer(&buffer)
        }
    }

    /// The finished attempt: APNs' answer, or `InvalidResponse` when no status came.
    var outcome: AttemptOutcome {
        guard let status else { return .lost(reason: "the server answered without a :status") }
        return .answered(status: status, self)
    }
}
