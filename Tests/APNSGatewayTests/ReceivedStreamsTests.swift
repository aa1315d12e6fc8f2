import NIOCore
import NIOHPACK
import NIOHTTP2
import Testing

@testable import APNSGateway

/// The gateway connection's streams on their own: requests gathered from frames, completed, batched.
@Suite("ReceivedStreams: requests gathered from frames, complete ones batched in order")
struct ReceivedStreamsTests {
    static let head: HPACKHeaders = [":method": "POST", ":path": "/3/device/ab"]

    @Test("a request completes at the end of its stream, with its body and trailers; batches keep the order")
    func gatherAndBatch() {
        var streams = ReceivedStreams(bodyLimit: 10)
        var completed: [Bool] = []
        completed.append(streams.headers(Self.head, endStream: false, on: 1))
        completed.append(streams.headers(Self.head, endStream: true, on: 3))
        completed.append(streams.data(ByteBuffer(string: "{}"), endStream: false, on: 1))
        completed.append(streams.headers(["x-trailer": "1"], endStream: true, on: 1))
        #expect(completed == [false, true, false, true])
        #expect(streams.undecidedCount == 2)
        let batch = streams.takeUndecided()
        #expect(batch.map(\.0) == [3, 1])
        #expect(batch.last?.1.body == Array("{}".utf8))
        #expect(batch.last?.1.trailers?.first(name: "x-trailer") == "1")
        #expect(streams.undecidedCount == 0)
        #expect(streams.isOpen(1) && streams.isOpen(3), "open until answered")
    }

    @Test("a body past the limit completes the request at once; later frames on it are ignored")
    func bodyLimit() {
        var streams = ReceivedStreams(bodyLimit: 4)
        _ = streams.headers(Self.head, endStream: false, on: 1)
        var completed = [streams.data(ByteBuffer(string: "1234"), endStream: false, on: 1)]
        completed.append(streams.data(ByteBuffer(string: "5"), endStream: false, on: 1))
        completed.append(streams.data(ByteBuffer(string: "6"), endStream: true, on: 1))
        completed.append(streams.headers(["x": "y"], endStream: true, on: 1))
        #expect(completed == [false, true, false, false])
        let batch = streams.takeUndecided()
        #expect(batch.count == 1 && batch.first?.1.bodyTooLarge == true && batch.first?.1.body.count == 4)
        #expect(streams.isOpen(1), "the answer may still be written")
    }

    @Test("a reset or answered stream is forgotten: no answer is written to it, its frames start nothing")
    func removed() {
        var streams = ReceivedStreams(bodyLimit: 10)
        _ = streams.headers(Self.head, endStream: false, on: 1)
        streams.remove(1)
        #expect(!streams.isOpen(1))
        let late = streams.data(ByteBuffer(string: "x"), endStream: true, on: 1)
        #expect(!late)
        _ = streams.headers(Self.head, endStream: true, on: 3)
        streams.removeAll()
        #expect(!streams.isOpen(3))
    }
}
