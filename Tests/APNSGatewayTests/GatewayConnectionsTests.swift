import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import APNSGateway

@Suite("The gateway's connection admission")
struct GatewayConnectionsTests {
    @Test("below the limit, the books of who is still setting up stay small however many connections come and go")
    func booksStaySmall() throws {
        let connections = GatewayConnections(limit: 10_000)
        var open: [EmbeddedChannel] = []
        for index in 0..<20_000 {
            let channel = EmbeddedChannel()
            guard case .admitted = connections.admit(channel) else {
                Issue.record("connection \(index) was not admitted")
                return
            }
            connections.setUp(channel)
            open.append(channel)
            if open.count > 100 { _ = try open.removeFirst().finish() }
        }
        #expect(connections.arrivalsKept <= 2048, "\(connections.arrivalsKept) arrivals kept for 100 open connections")
    }

    @Test(
        "at the limit the oldest connection still setting up is closed for the new one; when all have set up, refused")
    func shedsTheOldestSettingUp() throws {
        let connections = GatewayConnections(limit: 2)
        let (first, second, third, fourth) = (
            EmbeddedChannel(), EmbeddedChannel(), EmbeddedChannel(), EmbeddedChannel()
        )
        #expect(connections.admit(first).isAdmitted)
        let firstClosed = Mutex(false)
        first.closeFuture.whenComplete { _ in firstClosed.withLock { $0 = true } }
        #expect(connections.admit(second).isAdmitted)
        connections.setUp(second)
        guard case .shed(let oldest) = connections.admit(third) else {
            Issue.record("the third was not admitted in place of the first")
            return
        }
        #expect(oldest === first)
        first.embeddedEventLoop.run()
        #expect(firstClosed.withLock { $0 }, "the shed connection was not closed")
        connections.setUp(third)
        guard case .refused = connections.admit(fourth) else {
            Issue.record("the fourth was admitted though every connection had set up")
            return
        }
    }
}

extension GatewayConnections.Admitted {
    fileprivate var isAdmitted: Bool {
        if case .admitted = self { return true }
        return false
    }
}
