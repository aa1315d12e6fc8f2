import APNSClient
import APNSCore
import NIOCore
import Testing

@Suite("A notification goes to a device or to a broadcast channel, never both")
struct NotificationTargetTests {
    @Test("a device push has its token and apns-id; a broadcast has no token and its apns-request-id")
    func targets() throws {
        let apnsID = try #require(APNSMessageID(headerValue: "4d0a3d5e-6a5e-4b1a-9d3c-2f1e0a9b8c7d"))
        var headers = APNSRequestHeaders(topic: "com.example.app")
        headers.apnsID = apnsID
        let push = APNSNotification(deviceToken: "ab12", headers: headers, payload: ByteBuffer(string: "{}"))
        #expect(push.deviceToken == "ab12" && push.requestID == apnsID)
        guard case .device("ab12", headers) = push.target else {
            Issue.record("a device target")
            return
        }
        let channel = try #require(APNSChannelID(rawValue: "dHN0LXNyY2gtY2hubA=="))
        let broadcast = APNSNotification(
            broadcast: APNSBroadcast(
                bundleID: "com.example.app", headers: APNSBroadcastHeaders(channelID: channel, requestID: apnsID)),
            payload: ByteBuffer(string: "{}"))
        #expect(broadcast.deviceToken == nil && broadcast.requestID == apnsID)
        guard case .broadcast(let target) = broadcast.target else {
            Issue.record("a broadcast target")
            return
        }
        #expect(target.bundleID == "com.example.app" && target.headers.channelID == channel)
    }
}
