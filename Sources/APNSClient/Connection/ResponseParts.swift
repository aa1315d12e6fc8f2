import NIOCore
import NIOHPACK

/// A response as its frames arrive: the status and APNs' headers from HEADERS, the body from DATA.
struct ResponseParts {
    var status: Int?
    var apnsID: String?
    var uniqueID: String?
    var body: ByteBuffer?

    /// Bodies are read up to this size; APNs' error bodies are far smaller.
    static let bodyLimit = 4096

    mutating func add(_ headers: HPACKHeaders) {
        for (name, value, _) in headers {
            switch name {
            case ":status": status = Int(value)
            case "apns-id": apnsID = value
            case "apns-unique-id": uniqueID = value
            default: break
            }
        }
    }

    mutating func add(_ data: IOData) {
        guard case .byteBuffer(var buffer) = data, buffer.readableBytes > 0 else { return }
        if body == nil {
            body = buffer
        } else if body!.readableBytes < Self.bodyLimit {
            body!.writeBuffer(&buffer)
        }
    }

    /// The finished attempt: APNs' answer, or `InvalidResponse` when no status came.
    var outcome: AttemptOutcome {
        guard let status else { return .lost(reason: "the server answered without a :status") }
        return .answered(status: status, apnsID: apnsID, uniqueID: uniqueID, body: body)
    }
}
