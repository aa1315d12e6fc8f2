import APNSCore
import NIOCore
import NIOHTTP2
import Testing

@testable import APNSClient

@Suite("InFlightTable")
struct InFlightTableTests {
    @Test("a slow stream keeps its entry while hundreds of later streams come and go; the table grows for it")
    func slowStreamSurvives() {
        var table = InFlightTable(capacity: 4)
        let slow = pending()
        table.insert(slow, for: HTTP2StreamID(1))
        for id in stride(from: 3, through: 1001, by: 2) {
            let fast = pending()
            table.insert(fast, for: HTTP2StreamID(id))
            #expect(table[HTTP2StreamID(id)] === fast)
            #expect(table.remove(HTTP2StreamID(id)) === fast)
        }
        #expect(table[HTTP2StreamID(1)] === slow)
        #expect(table.count == 1)
        #expect(table.remove(HTTP2StreamID(3)) == nil)
        #expect(table.remove(HTTP2StreamID(1)) === slow)
        #expect(table.isEmpty)
    }

    private func pending() -> PendingNotification {
        PendingNotification(
            notification: APNSNotification(deviceToken: "00", headers: APNSRequestHeaders(), payload: ByteBuffer()),
            deadline: .now(), onResult: { _ in })
    }
}
