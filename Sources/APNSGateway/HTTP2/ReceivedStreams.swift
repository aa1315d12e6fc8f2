import NIOCore
import NIOHPACK
import NIOHTTP2

/// A provider connection's open streams as its handler reads them: each request gathered from its frames, and the
/// complete ones waiting to be decided in a batch. The part of ``ProviderConnectionHandler`` that decides, apart from
/// the handler that reads and writes, so it is tested on its own.
struct ReceivedStreams {
    /// Reading a body stops past this many bytes; the request is complete at once (and answered `413`).
    let bodyLimit: Int
    /// Open streams: the request being read, or a marker once it is complete.
    private var streams: [HTTP2StreamID: ReceivedStream] = [:]
    /// Complete requests not yet taken to be decided.
    private var undecided: [(HTTP2StreamID, ReceivedStream)] = []

    init(bodyLimit: Int) {
        self.bodyLimit = bodyLimit
    }

    /// How many complete requests wait to be decided.
    var undecidedCount: Int { undecided.count }

    /// Whether an answer may still be written on `stream` (it is open).
    func isOpen(_ stream: HTTP2StreamID) -> Bool {
        streams[stream] != nil
    }

    /// A header block arrived: a request's head, or its trailers. `true` when the request is now complete.
    mutating func headers(_ block: HPACKHeaders, endStream: Bool, on stream: HTTP2StreamID) -> Bool {
        if var request = streams[stream] {
            guard !request.answered else { return false }
            request.trailers = block
            streams[stream] = request
        } else {
            streams[stream] = ReceivedStream(head: block)
        }
        return endStream && complete(stream)
    }

    /// Body bytes arrived. `true` when the request is now complete: its stream ended, or its body went past
    /// ``bodyLimit`` (the rest is not kept).
    mutating func data(_ bytes: ByteBuffer?, endStream: Bool, on stream: HTTP2StreamID) -> Bool {
        // Taken out while it grows, so its body is appended in place rather than copied.
        guard var request = streams.removeValue(forKey: stream) else { return false }
        guard !request.answered else {
            streams[stream] = request
            return false
        }
        if let bytes {
            if request.body.count + bytes.readableBytes > bodyLimit {
                request.bodyTooLarge = true
            } else {
                request.body.append(contentsOf: bytes.readableBytesView)
            }
        }
        streams[stream] = request
        return (endStream || request.bodyTooLarge) && complete(stream)
    }

    /// The stream ended (reset, closed, answered): it is forgotten.
    mutating func remove(_ stream: HTTP2StreamID) {
        streams[stream] = nil
    }

    /// Every stream ends (the connection goes away).
    mutating func removeAll() {
        streams.removeAll()
    }

    /// Takes the complete requests, in the order they completed, to be decided as one batch.
    mutating func takeUndecided() -> [(HTTP2StreamID, ReceivedStream)] {
        defer { undecided = [] }
        return undecided
    }

    private mutating func complete(_ stream: HTTP2StreamID) -> Bool {
        guard var request = streams[stream] else { return false }
        streams[stream] = ReceivedStream(answered: true)
        request.answered = true
        undecided.append((stream, request))
        return true
    }
}
