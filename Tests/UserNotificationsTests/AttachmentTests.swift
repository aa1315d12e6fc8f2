import Foundation
import Testing
import UserNotifications

@Suite("Attachments")
struct AttachmentTests {
    func file(_ name: String, size: Int) throws -> URL {
        let url = temporaryFolder().appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        return url
    }

    @Test("a local image is accepted with its type from the extension")
    func image() throws {
        let attachment = try UNNotificationAttachment(
            identifier: "att1", url: fixtureCopy("push_image.png"), options: nil)
        #expect(attachment.identifier == "att1")
        #expect(attachment.type == "public.png")
        #expect(!attachment.thumbnailHidden)
    }

    @Test("an empty identifier becomes a unique one")
    func generatedIdentifier() throws {
        let first = try UNNotificationAttachment(identifier: "", url: fixtureCopy("push_image.png"))
        let second = try UNNotificationAttachment(identifier: "", url: fixtureCopy("push_image.png"))
        #expect(!first.identifier.isEmpty)
        #expect(first.identifier != second.identifier)
    }

    @Test(
        "types and their limits: audio 5 MB, image 10 MB, movie 50 MB",
        arguments: [
            ("a.mp3", 5_000_000, "public.mp3"), ("a.m4a", 5_000_000, "public.mpeg-4-audio"),
            ("a.wav", 5_000_000, "com.microsoft.waveform-audio"), ("a.aiff", 5_000_000, "public.aiff-audio"),
            ("a.jpg", 10_000_000, "public.jpeg"), ("a.gif", 10_000_000, "com.compuserve.gif"),
            ("a.PNG", 10_000_000, "public.png"), ("a.mp4", 50_000_000, "public.mpeg-4"),
            ("a.mpg", 50_000_000, "public.mpeg"), ("a.avi", 50_000_000, "public.avi"),
        ]
    )
    func limits(name: String, limit: Int, type: String) throws {
        #expect(try UNNotificationAttachment(identifier: "a", url: file(name, size: limit)).type == type)
        #expect {
            try UNNotificationAttachment(identifier: "a", url: file(name, size: limit + 1))
        } throws: { ($0 as? UNError)?.code == .attachmentInvalidFileSize }
    }

    @Test("a remote URL, a missing file and a folder are attachmentInvalidURL")
    func invalidURL() throws {
        for url in [
            URL(string: "https://example.com/a.png")!, temporaryFolder().appendingPathComponent("missing.png"),
            temporaryFolder(),
        ] {
            #expect(throws: UNError(.attachmentInvalidURL)) { try UNNotificationAttachment(identifier: "a", url: url) }
            do {
                _ = try UNNotificationAttachment(identifier: "a", url: url)
            } catch UNError.attachmentInvalidURL {
                // the iOS catch pattern matches
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test("an unknown type is attachmentUnrecognizedType; a type hint decides over the extension")
    func types() throws {
        #expect {
            try UNNotificationAttachment(identifier: "a", url: file("notes.txt", size: 10))
        } throws: { ($0 as? UNError)?.code == .attachmentUnrecognizedType }
        let hinted = try UNNotificationAttachment(
            identifier: "a",
            url: file("download.tmp", size: 10),
            options: [UNNotificationAttachmentOptionsTypeHintKey: "com.compuserve.gif"]
        )
        #expect(hinted.type == "com.compuserve.gif")
        #expect {
            try UNNotificationAttachment(
                identifier: "a", url: file("a.png", size: 10),
                options: [UNNotificationAttachmentOptionsTypeHintKey: "public.text"])
        } throws: { ($0 as? UNError)?.code == .attachmentUnrecognizedType }
    }

    @Test("an empty file is attachmentCorrupt")
    func corrupt() throws {
        #expect(throws: UNError(.attachmentCorrupt)) {
            try UNNotificationAttachment(identifier: "a", url: file("a.png", size: 0))
        }
    }

    @Test("seed 003: a GIF with a thumbnail clipping rectangle, and a hidden thumbnail")
    func thumbnailOptions() throws {
        let gif = try UNNotificationAttachment(
            identifier: "attachment",
            url: fixtureCopy("fly-to-the-moon.gif"),
            options: [
                UNNotificationAttachmentOptionsThumbnailClippingRectKey: CGRect(x: 0, y: 0, width: 1, height: 1)
                    .dictionaryRepresentation
            ]
        )
        #expect(gif.thumbnailClippingRect?.width == 1)
        #expect(gif.thumbnailClippingRect?.height == 1)
        let hidden = try UNNotificationAttachment(
            identifier: "b",
            url: fixtureCopy("push_image.png"),
            options: [
                UNNotificationAttachmentOptionsThumbnailHiddenKey: true,
                UNNotificationAttachmentOptionsThumbnailTimeKey: 2,
            ]
        )
        #expect(hidden.thumbnailHidden)
        #expect(hidden.options[UNNotificationAttachmentOptionsThumbnailTimeKey] as? Int == 2)
    }

    @Test("scheduling moves the file into the center's store; removal deletes it")
    func movedIntoStore() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        let center = try await authorizedCenter(clock: clock)
        let original = fixtureCopy("fly-to-the-moon.gif")
        let content = UNMutableNotificationContent()
        content.title = "\"Fly to the moon\""
        content.attachments = [try UNNotificationAttachment(identifier: "attachment", url: original)]
        try await center.add(UNNotificationRequest(identifier: "time interval request", content: content, trigger: nil))
        let delivered = try #require(await center.deliveredNotifications().first)
        let stored = try #require(delivered.request.content.attachments.first)
        #expect(stored.url != original)
        #expect(!FileManager.default.fileExists(atPath: original.path))
        #expect(FileManager.default.fileExists(atPath: stored.url.path))
        #expect(stored.url.path.hasPrefix(center.configuration.dataStore!.path))
        center.removeDeliveredNotifications(withIdentifiers: ["time interval request"])
        #expect(!FileManager.default.fileExists(atPath: stored.url.path))
    }

    @Test("a file gone before scheduling is attachmentMoveIntoDataStoreFailed")
    func moveFails() async throws {
        let center = try await authorizedCenter()
        let url = fixtureCopy("push_image.png")
        let content = UNMutableNotificationContent()
        content.attachments = [try UNNotificationAttachment(identifier: "a", url: url)]
        try FileManager.default.removeItem(at: url)
        await #expect(throws: UNError(.attachmentMoveIntoDataStoreFailed)) {
            try await center.add(UNNotificationRequest(identifier: "r", content: content, trigger: nil))
        }
    }
}
