import NIOHTTP2
import Testing

@testable import APNSClient

/// The client connection's life and stream budget on their own.
@Suite("ConnectionStateMachine: starting, open, draining, closed; streams up to the server's limit")
struct ConnectionStateMachineTests {
    @Test("no stream before SETTINGS; then odd stream IDs up to the limit, capped; a lowered limit is honoured")
    func streamsFromSettings() {
        var connection = ConnectionStateMachine(streamCap: 100)
        do {
            let result = connection.openStream(inFlight: 0)
            #expect(result == .none)
        }
        do {
            let result = connection.settingsReceived([HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000)])
            #expect(result == 100)
        }
        #expect(connection.state == .open)
        do {
            let result = connection.openStream(inFlight: 0)
            #expect(result == .stream(1))
        }
        do {
            let result = connection.openStream(inFlight: 1)
            #expect(result == .stream(3))
        }
        do {
            let result = connection.openStream(inFlight: 100)
            #expect(result == .none)
        }
        do {
            let result = connection.settingsReceived([HTTP2Setting(parameter: .maxConcurrentStreams, value: 2)])
            #expect(result == 2)
        }
        do {
            let result = connection.openStream(inFlight: 2)
            #expect(result == .none)
        }
        do {
            let result = connection.openStream(inFlight: 1)
            #expect(result == .stream(5))
        }
        do {
            let result = connection.settingsReceived([])
            #expect(result == 2, "SETTINGS without the limit keeps it")
        }
    }

    @Test("the first SETTINGS without a limit opens the connection at the cap")
    func capWithoutLimit() {
        var connection = ConnectionStateMachine(streamCap: 100)
        do {
            let result = connection.settingsReceived([])
            #expect(result == 100)
        }
        #expect(connection.takesWork)
    }

    @Test("draining takes no work and opens no stream; it closes once no stream is left, and closes only once")
    func drainAndClose() {
        var connection = ConnectionStateMachine(streamCap: 10)
        _ = connection.settingsReceived([])
        do {
            let result = connection.startDraining()
            #expect(result)
        }
        do {
            let result = connection.startDraining()
            #expect(!result, "draining begins once")
        }
        #expect(!connection.takesWork)
        do {
            let result = connection.openStream(inFlight: 0)
            #expect(result == .none)
        }
        do {
            let result = connection.closeIfDrained(streamsLeft: true)
            #expect(!result)
        }
        do {
            let result = connection.closeIfDrained(streamsLeft: false)
            #expect(result)
        }
        #expect(connection.state == .closed)
        do {
            let result = connection.close()
            #expect(!result, "already closed")
        }
        var failed = ConnectionStateMachine(streamCap: 10)
        do {
            let result = failed.close()
            #expect(result)
        }
        do {
            let result = failed.startDraining()
            #expect(!result)
        }
    }
}
