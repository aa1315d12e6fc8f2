import NIOHTTP2
import Testing

@testable import APNSClient

/// The client connection's life and stream budget on their own.
@Suite("ConnectionStateMachine: starting, open, draining, closed; streams up to the server's limit")
struct ConnectionStateMachineTests {
    @Test("no stream before SETTINGS; then odd stream IDs up to the limit, capped; a lowered limit is honoured")
    func streamsFromSettings() {
        var connection = ConnectionStateMachine(streamCap: 100)
        func open(_ inFlight: Int) -> ConnectionStateMachine.Opening { connection.openStream(inFlight: inFlight) }
        func limit(_ value: Int?) -> Int {
            connection.settingsReceived(value.map { [HTTP2Setting(parameter: .maxConcurrentStreams, value: $0)] } ?? [])
        }
        #expect(open(0) == .none)
        #expect(limit(1000) == 100)
        #expect(connection.state == .open)
        #expect([open(0), open(1), open(100)] == [.stream(1), .stream(3), .none])
        #expect(limit(2) == 2)
        #expect([open(2), open(1)] == [.none, .stream(5)])
        #expect(limit(nil) == 2, "SETTINGS without the limit keeps it")
    }

    @Test("the first SETTINGS without a limit opens the connection at the cap")
    func capWithoutLimit() {
        var connection = ConnectionStateMachine(streamCap: 100)
        let limit = connection.settingsReceived([])
        #expect(limit == 100 && connection.takesWork)
    }

    @Test("draining takes no work and opens no stream; it closes once no stream is left, and closes only once")
    func drainAndClose() {
        var connection = ConnectionStateMachine(streamCap: 10)
        _ = connection.settingsReceived([])
        let drains = [connection.startDraining(), connection.startDraining()]
        #expect(drains == [true, false], "draining begins once")
        let opening = connection.openStream(inFlight: 0)
        #expect(!connection.takesWork && opening == .none)
        let closes = [
            connection.closeIfDrained(streamsLeft: true), connection.closeIfDrained(streamsLeft: false),
            connection.close(),
        ]
        #expect(closes == [false, true, false], "closed once the last stream is done, and only once")
        #expect(connection.state == .closed)
        var failed = ConnectionStateMachine(streamCap: 10)
        let failedOnce = [failed.close(), failed.startDraining()]
        #expect(failedOnce == [true, false])
    }
}
