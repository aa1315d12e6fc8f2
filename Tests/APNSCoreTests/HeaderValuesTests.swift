import APNSCore
import Foundation
import Testing

@Suite("Header values as typed: one type for the CLI's flags and the console's form")
struct HeaderValuesTests {
    @Test("the topic defaults to the bundle ID with the push type's suffix; a given topic wins")
    func topicDefault() {
        #expect(APNSHeaderValues().topic(defaultBundleID: "com.example.app") == "com.example.app")
        #expect(APNSHeaderValues(pushType: "voip").topic(defaultBundleID: "com.example.app") == "com.example.app.voip")
        #expect(
            APNSHeaderValues(pushType: "liveactivity").topic(defaultBundleID: "com.example.app")
                == "com.example.app.push-type.liveactivity")
        #expect(APNSHeaderValues(topic: "given").topic(defaultBundleID: "com.example.app") == "given")
        #expect(APNSHeaderValues().topic(defaultBundleID: nil) == nil)
    }

    @Test("a form's JSON decodes beside other fields; empty values are not given; the linter reads them")
    func formAndLinter() throws {
        let json = #"{"payload":"{}","pushType":"","priority":"7","collapseID":"","apnsID":"not-a-uuid"}"#
        let values = try JSONDecoder().decode(APNSHeaderValues.self, from: Data(json.utf8)).withoutBlanks
        #expect(values == APNSHeaderValues(priority: "7", apnsID: "not-a-uuid"))
        let report = APNSLinter.lint(
            APNSLinter.Request(body: Data(#"{"aps":{"alert":"hi"}}"#.utf8), headers: values))
        #expect(Set(report.errors.compactMap(\.reason?.rawValue)) == ["BadPriority", "BadMessageId"])
    }
}
