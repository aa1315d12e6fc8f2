import HeraldSupport
import Synchronization
import Testing

@Suite("WorkSignal: a count of changes and a wait for the next, missing none")
struct WorkSignalTests {
    @Test("a change since the count was read ends the wait at once; one after it wakes the waiter")
    func missesNone() async {
        let signal = WorkSignal(sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        let seen = signal.count
        signal.notify()
        // Already changed since `seen`: no wait at all, though the timeout is an hour.
        await signal.wait(after: seen, upTo: .seconds(3600))
        let now = signal.count
        #expect(now == seen + 1)
        let woken = Task { await signal.wait(after: now, upTo: .seconds(3600)) }
        // The waiter may or may not be waiting yet: either way the change after `now` ends its wait.
        signal.notify()
        await woken.value
        #expect(signal.count == now + 1)
    }

    @Test("the timeout runs on the clock it is given; a cancelled waiter returns")
    func timeoutAndCancellation() async {
        let slept = Mutex<[Duration]>([])
        let signal = WorkSignal(sleep: { duration in slept.withLock { $0.append(duration) } })
        // The given clock's sleep returns at once: the wait times out without any change.
        await signal.wait(after: signal.count, upTo: .milliseconds(250))
        #expect(slept.withLock { $0 } == [.milliseconds(250)])
        let forever = WorkSignal(sleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        let waiting = Task { await forever.wait(after: forever.count, upTo: .seconds(3600)) }
        waiting.cancel()
        await waiting.value
        #expect(forever.count == 0, "cancelled, not notified")
    }
}
