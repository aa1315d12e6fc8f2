import DeviceSimulator
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@Suite("The device API's count of screen changes", .startsServers)
struct ChangesAPITests {
    @Test(
        "GET /changes: the count at once; with after, the next change (a local notification scheduled, Notification Center cleared) or the wait's end; bad values named"
    )
    func changes() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try DeviceHarness.manifest(example: "000-ritl-demo")
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            try await DeviceHarness.withAPI(of: device) { api in
                let start = try await Self.count(api, "")
                // Nothing happens: the wait ends with the same count after the time asked.
                let clock = ContinuousClock()
                let began = clock.now
                #expect(try await Self.count(api, "?after=\(start)&wait=1") == start)
                #expect(clock.now - began >= .milliseconds(900), "it waited for a change")
                // Scheduling a local notification sends no event, yet what the device shows changed.
                let waiting = Task { try await Self.count(api, "?after=\(start)&wait=30") }
                let (_, created) = try await HTTP.call(
                    "POST", "\(api)/apps/\(manifest.bundleID)/notifications",
                    body: #"{"identifier": "later", "title": "In an hour", "trigger": {"timeInterval": 3600}}"#)
                #expect(created == 201)
                let scheduled = try await waiting.value
                #expect(scheduled > start)
                let cleared = Task { try await Self.count(api, "?after=\(scheduled)&wait=30") }
                let (_, clearedStatus) = try await HTTP.call("DELETE", "\(api)/notifications")
                #expect(clearedStatus == 204)
                #expect(try await cleared.value > scheduled)
                // A count above the device's (it restarted since it was read) is answered at once.
                #expect(try await Self.count(api, "?after=999999999&wait=30") < 999_999_999)
                for (query, named) in [
                    ("?after=-1", "0 or more"), ("?after=abc", "0 or more"), ("?after=0&wait=61", "0 to 60"),
                    ("?after=0&wait=-1", "0 to 60"), ("?after=0&wait=9223372036854775808", "0 to 60"),
                ] {
                    let (body, status) = try await HTTP.call("GET", "\(api)/changes\(query)")
                    #expect(status == 400, "\(query)")
                    #expect(String(decoding: body, as: UTF8.self).contains(named), "\(query)")
                }
                await device.stop()
            }
        }
    }

    static func count(_ api: String, _ query: String) async throws -> Int {
        let (data, status) = try await HTTP.call("GET", "\(api)/changes\(query)")
        #expect(status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["changes"] as? Int)
    }
}
