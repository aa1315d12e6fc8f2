import APNSCore
import Crypto
import DeviceSimulator
import Foundation
import GatewayTestSupport
import TestPacing
import Testing
import UserNotifications

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("The device API's pending notifications", .startsServers)
struct PendingAPITests {
    @Test("GET /pending lists scheduled local notifications with their triggers, soonest first")
    func pendingAPI() async throws {
        try await DeviceHarness.with { harness in
            let manifest = try DeviceHarness.manifest(example: "000-ritl-demo")
            let device = try await SimulatedDevice.start(harness.configuration([manifest]))
            try await DeviceHarness.withAPI(of: device) { api in
                let schedules = [
                    #"{"identifier": "later", "title": "In an hour", "trigger": {"timeInterval": 3600}}"#,
                    #"{"identifier": "soon", "title": "In a minute", "trigger": {"timeInterval": 60, "repeats": true}}"#,
                    #"{"identifier": "morning", "title": "Morning", "trigger": {"dateMatching": {"year": 2099, "month": 1, "day": 1, "hour": 8, "minute": 30}}}"#,
                    #"{"identifier": "office", "title": "Office", "trigger": {"region": {"latitude": 31.2, "longitude": 121.5, "radius": 100, "identifier": "office", "notifyOnExit": false}}}"#,
                ]
                for schedule in schedules {
                    let (_, status) = try await HTTP.call(
                        "POST", "\(api)/apps/\(manifest.bundleID)/notifications", body: schedule)
                    #expect(status == 201)
                }
                let (data, status) = try await HTTP.call("GET", "\(api)/pending")
                #expect(status == 200)
                let pending = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
                #expect(pending.map { $0["identifier"] as? String } == ["soon", "later", "morning", "office"])
                let triggers = pending.compactMap { $0["trigger"] as? [String: Any] }
                #expect(
                    triggers.map { $0["kind"] as? String } == ["timeInterval", "timeInterval", "calendar", "location"])
                #expect(triggers[0]["repeats"] as? Bool == true && triggers[0]["timeInterval"] as? Double == 60)
                #expect(
                    triggers[2]["dateMatching"] as? [String: Int] == [
                        "year": 2099, "month": 1, "day": 1, "hour": 8, "minute": 30,
                    ])
                let region = try #require(triggers[3]["region"] as? [String: Any])
                #expect(region["identifier"] as? String == "office" && region["notifyOnExit"] as? Bool == false)
                #expect(pending[3]["nextFireDate"] == nil)
                #expect(pending[0]["bundleID"] as? String == manifest.bundleID)
                await device.stop()
            }
        }
    }
}
