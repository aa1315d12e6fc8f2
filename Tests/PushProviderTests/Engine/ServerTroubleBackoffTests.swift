import APNSCore
import Foundation
import HeraldTime
import Synchronization
import Testing

@testable import PushProvider

@Suite("A 500/503 storm slows the app's whole send")
struct ServerTroubleBackoffTests {
    let now = Date(timeIntervalSince1970: 1_900_000_000)

    @Test("mostly 500/503 pauses the app 1 s, doubling to a minute; a normal chunk ends it; few answers change nothing")
    func decisions() {
        let backoff = ServerTroubleBackoff()
        #expect(backoff.chunkSize(5000, appID: "a") == 5000)
        #expect(backoff.record(appID: "a", answered: 9, troubled: 9, now: now) == nil, "nine failing devices")
        #expect(backoff.chunkSize(5000, appID: "a") == 5000)
        #expect(backoff.record(appID: "a", answered: 100, troubled: 49, now: now) == nil, "under half")
        #expect(backoff.record(appID: "a", answered: 100, troubled: 50, now: now) == 1)
        #expect(backoff.chunkSize(5000, appID: "a") == ServerTroubleBackoff.probeChunk)
        #expect(backoff.chunkSize(7, appID: "a") == 7)
        #expect(backoff.chunkSize(5000, appID: "b") == 5000, "another app is not slowed")
        var pauses: [TimeInterval] = []
        for _ in 0..<8 { pauses.append(backoff.record(appID: "a", answered: 50, troubled: 50, now: now) ?? 0) }
        #expect(pauses == [2, 4, 8, 16, 32, 60, 60, 60])
        #expect(backoff.record(appID: "a", answered: 3, troubled: 3, now: now) == nil)
        #expect(backoff.chunkSize(5000, appID: "a") == ServerTroubleBackoff.probeChunk, "a few answers leave it paused")
        #expect(backoff.record(appID: "a", answered: 0, troubled: 0, now: now) == nil)
        #expect(backoff.record(appID: "a", answered: 50, troubled: 0, now: now) == nil)
        #expect(backoff.chunkSize(5000, appID: "a") == 5000, "answered normally: full speed again")
        #expect(backoff.record(appID: "a", answered: 50, troubled: 50, now: now) == 1, "a new storm starts at 1 s")
    }

    @Test("a pause holds the app's next chunk until the provider's clock has moved past it, not a moment longer")
    func waits() async {
        // A manual clock without real time: only moving it can end the wait.
        let time = ManualClock(start: Date(timeIntervalSince1970: 1_900_000_000))
        let backoff = ServerTroubleBackoff()
        let pauses = (0..<6).map { _ in backoff.record(appID: "a", answered: 20, troubled: 20, now: time.currentDate) }
        #expect(pauses == [1, 2, 4, 8, 16, 32])
        let ended = Mutex(false)
        let waiting = Task {
            await backoff.wait(appID: "a", clock: time)
            ended.withLock { $0 = true }
        }
        await time.waitForSleepers(1)
        time.advance(by: .seconds(31))
        #expect(!ended.withLock { $0 }, "31 s of the 32 s pause: still waiting")
        await time.waitForSleepers(1)
        time.advance(by: .seconds(1))
        await waiting.value
        #expect(ended.withLock { $0 }, "the wait ended when the clock reached the pause's end")
        // A pause already over holds nothing: no wait on the clock begins (it would never end).
        await backoff.wait(appID: "a", clock: time)
    }
}
