import Testing

@testable import APNSCore

@Suite("Push types and topics")
struct APNSPushTypeTests {
    @Test(
        "each push type has its topic suffix and size limit",
        arguments: [
            ("alert", "", 4096), ("background", "", 4096), ("complication", ".complication", 4096),
            ("controls", ".push-type.controls", 4096), ("fileprovider", ".pushkit.fileprovider", 4096),
            ("liveactivity", ".push-type.liveactivity", 4096), ("location", ".location-query", 4096),
            ("pushtotalk", ".voip-ptt", 4096), ("voip", ".voip", 5120), ("widgets", ".push-type.widgets", 4096),
        ]
    )
    func suffixAndSize(name: String, suffix: String, size: Int) {
        let type = APNSPushType(rawValue: name)
        #expect(type.isKnown)
        #expect(type.topicSuffix == suffix)
        #expect(type.maximumPayloadSize == size)
        #expect(type.topic(forBundleID: "com.example.app") == "com.example.app" + suffix)
        #expect(type.bundleID(fromTopic: "com.example.app" + suffix) == "com.example.app")
    }

    @Test("mdm topics are not derived from a bundle ID; unknown types are not known")
    func specialTypes() {
        #expect(APNSPushType.mdm.isKnown)
        #expect(APNSPushType.mdm.topicSuffix == nil)
        #expect(!APNSPushType(rawValue: "banner").isKnown)
        #expect(APNSPushType.location.requiresTokenAuthentication)
        #expect(!APNSPushType.alert.requiresTokenAuthentication)
    }

    @Test("a topic without its push type's suffix names no bundle")
    func missingSuffix() {
        #expect(APNSPushType.voip.bundleID(fromTopic: "com.example.app") == nil)
        #expect(APNSPushType.voip.bundleID(fromTopic: ".voip") == nil)
    }

    @Test("the longest known suffix is found in a topic")
    func suffixLookup() {
        #expect(APNSTopic.pushTypeSuffixed(in: "com.example.app.voip-ptt") == .pushtotalk)
        #expect(APNSTopic.pushTypeSuffixed(in: "com.example.app.voip") == .voip)
        #expect(APNSTopic.pushTypeSuffixed(in: "com.example.app") == nil)
    }

    @Test("priorities are exactly 10, 5 and 1")
    func priorities() {
        #expect(APNSPriority(headerValue: "10") == .immediate)
        #expect(APNSPriority(headerValue: "5") == .conservePower)
        #expect(APNSPriority(headerValue: "1") == .prioritizePowerConsumption)
        for bad in ["0", "2", "11", "+5", " 5", "5.0"] { #expect(APNSPriority(headerValue: bad) == nil, "\(bad)") }
    }
}
