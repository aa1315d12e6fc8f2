import APNSCore
import APNSGateway
import Courier
import Foundation
import GatewayTestSupport
import TestPacing
import Testing

@Suite("herald channels and herald send --channel against the live gateway", .startsServers)
struct ChannelsCommandTests {
    @Test("create, list, read, broadcast on it, delete; then read is ChannelNotRegistered with exit 1")
    func lifecycle() async throws {
        try await SendGateway.with { gateway in
            let manage = "https://127.0.0.1:\(gateway.server.managementPort ?? 0)"
            let common = [
                "--url", manage, "--ca-file", gateway.caFile, "--auth-key", gateway.authKey, "--topic",
                "com.example.app",
            ]
            let created = await runHerald(["channels", "create"] + common + ["--storage-policy", "1"])
            #expect(created.status == 0, "\(created.errorOutput)")
            let id = try #require(created.output.split(separator: "\n").first.map(String.init))
            #expect(APNSChannelID(rawValue: id) != nil)

            let listed = await runHerald(["channels", "list"] + common)
            #expect(listed.output == "\(id)\n", "\(listed.errorOutput)")
            let read = await runHerald(["channels", "read"] + common + ["--channel", id])
            #expect(read.output.contains("message-storage-policy 1"), "exit \(read.status): \(read.errorOutput)")

            let expiration = String(Int(Date().timeIntervalSince1970) + 600)
            let sent = await runHerald(
                gateway.arguments([
                    "--channel", id, "--event", "update", "--content-state", #"{"score":"1-0"}"#, "--expiration",
                    expiration,
                ]))
            #expect(sent.status == 0, "\(sent.errorOutput)")
            #expect(sent.output.contains("accepted, apns-request-id"))
            let channelID = try #require(APNSChannelID(rawValue: id))
            let stored = try #require(gateway.server.channels.channel(channelID))
            let payload = try APNSPayload(data: Data(stored.storedMessage?.payload ?? []))
            #expect(payload.aps["event"] == "update")
            #expect(payload.aps["content-state"] == ["score": "1-0"])
            #expect(payload.aps["timestamp"]?.number != nil, "--event stamps the time")

            let curl = await runHerald(gateway.arguments(["--channel", id, "--event", "end", "--print-curl"]))
            #expect(curl.output.contains("/4/broadcasts/apps/com.example.app"))
            #expect(curl.output.contains("apns-channel-id: \(id)"))

            #expect(await runHerald(["channels", "delete"] + common + ["--channel", id]).status == 0)
            let gone = await runHerald(["channels", "read"] + common + ["--channel", id])
            #expect(gone.status == 1)
            #expect(gone.errorOutput.contains("ChannelNotRegistered"))
        }
    }

    @Test("bad input is refused before anything is sent")
    func badInput() async throws {
        try await SendGateway.with { gateway in
            let noTopic = await runHerald(gateway.arguments(["--channel", "dHN0LXNyY2gtY2hubA==", "--token", "ab"]))
            #expect(noTopic.status != 0)
            let notBase64 = await runHerald(gateway.arguments(["--channel", "%%%", "--event", "update"]))
            #expect(notBase64.status != 0)
            #expect(notBase64.errorOutput.contains("not base64"))
            let badEvent = await runHerald(gateway.arguments(["--channel", "dHN0LXNyY2gtY2hubA==", "--event", "go"]))
            #expect(badEvent.errorOutput.contains("--event is start, update or end"))
        }
    }
}
