import Foundation
import TestPacing
import Testing
import UserNotifications

@Suite("Service extensions run as iOS runs them", .startsServers)
struct ServiceExtensionHostTests {
    @Test("a template-shaped extension turns title Hello into Hello [modified]")
    func templateExtension() async throws {
        let request = try pushRequest(#"{"aps":{"alert":{"title":"Hello","body":"World"},"mutable-content":1}}"#)
        let content = await ServiceExtensionHost().process(request, with: NotificationService())
        #expect(content.title == "Hello [modified]")
        #expect(content.body == "World")
        #expect(request.content.title == "Hello")
    }

    @Test("seed 000: the RITL demo rewrites the body")
    func ritlRewrite() async throws {
        let request = try pushRequest(#"{"aps":{"alert":"This is My message Yue.","badge":1,"mutable-content":1}}"#)
        let outcome = await ServiceExtensionHost().run(request, with: RITLNotificationService())
        #expect(outcome.resolution == .modified)
        #expect(outcome.content.body == "我是在Service里面修改后的title")
        #expect(outcome.content.badge == 1)
    }

    @Test("seed 002: the downloaded image becomes an attachment")
    func imageDownload() async throws {
        let request = try pushRequest(
            #"{"aps":{"alert":"Testing.. (34)","badge":1,"sound":"default","mutable-content":1}}"#)
        let server = try LocalFileServer()
        let service = ImageDownloadService(imageURL: server.url("138904814.jpg"), downloadFolder: temporaryFolder())
        let content = await ServiceExtensionHost().process(request, with: service)
        #expect(content.title == " [modified]")
        #expect(content.attachments.count == 1)
        #expect(content.attachments.first?.identifier == "remote-atta1")
        #expect(content.attachments.first?.type == "public.jpeg")
    }

    @Test("seed 003: the gifUrl in userInfo is downloaded and attached as a GIF")
    func gifDownload() async throws {
        let server = try LocalFileServer()
        let payload =
            #"{"aps":{"alert":{"title":"x","body":"song"},"mutable-content":1},"gifUrl":""#
            + server.url("fly-to-the-moon.gif").absoluteString + #""}"#
        let content = await ServiceExtensionHost().process(try pushRequest(payload), with: MediaDownloadService())
        #expect(content.title == "")
        #expect(content.attachments.first?.type == "com.compuserve.gif")
        #expect(content.sound == UNNotificationSound.default)
        let nothing = await ServiceExtensionHost().process(
            try pushRequest(#"{"aps":{"alert":"a"}}"#), with: MediaDownloadService())
        #expect(nothing.attachments.isEmpty)
    }

    @Test("at the time limit the best attempt from serviceExtensionTimeWillExpire is shown")
    func bestAttempt() async throws {
        let clock = ManualClock()
        let host = ServiceExtensionHost(timeLimit: .seconds(30), clock: clock)
        let request = try pushRequest(#"{"aps":{"alert":"original","mutable-content":1}}"#)
        async let outcome = host.run(request, with: StallingService(offersBestAttempt: true))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(29))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        let result = await outcome
        #expect(result.resolution == .bestAttempt)
        #expect(result.content.body == "best attempt")
    }

    @Test("an extension that never calls back shows the original content")
    func neverCallsBack() async throws {
        let clock = ManualClock()
        let host = ServiceExtensionHost(timeLimit: .seconds(30), clock: clock)
        let request = try pushRequest(#"{"aps":{"alert":"original","mutable-content":1}}"#)
        async let outcome = host.run(request, with: StallingService(offersBestAttempt: false))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        let result = await outcome
        #expect(result.resolution == .original)
        #expect(result.content.body == "original")
    }

    @Test("a handler called twice: the first content counts; the timer stops once content arrives")
    func calledTwice() async throws {
        let clock = ManualClock()
        let outcome = await ServiceExtensionHost(clock: clock).run(
            try pushRequest(#"{"aps":{"alert":"a"}}"#), with: TwiceService())
        #expect(outcome.content.body == "first")
        #expect(outcome.resolution == .modified)
    }

    @Test("the base class hands back the content unchanged")
    func baseClass() async throws {
        let request = try pushRequest(#"{"aps":{"alert":"same"}}"#)
        #expect(await ServiceExtensionHost().process(request, with: UNNotificationServiceExtension()).body == "same")
    }
}
