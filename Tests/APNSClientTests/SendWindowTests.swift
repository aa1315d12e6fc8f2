import Testing

@testable import APNSClient

@Suite("The send window: what /metrics reports as notifications in flight")
struct SendWindowTests {
    @Test("places taken are in use until their results give them back")
    func inUse() async {
        let window = SendWindow(capacity: 10)
        #expect(window.inUse == 0)
        await window.acquire(3)
        await window.acquire(4)
        #expect(window.inUse == 7)
        window.release(5)
        #expect(window.inUse == 2)
        window.release(2)
        #expect(window.inUse == 0)
    }
}
