import Foundation
import Testing

@Suite("docs/testing.md")
struct TestingDocTests {
    @Test("the page's complete example is WelcomePushTests.swift, word for word")
    func exampleIsTheTest() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let root = here.deletingLastPathComponent().deletingLastPathComponent()
        let example = try String(contentsOf: here.appendingPathComponent("WelcomePushTests.swift"), encoding: .utf8)
        let page = try String(contentsOf: root.appendingPathComponent("docs/testing.md"), encoding: .utf8)
        #expect(page.contains("```swift\n" + example + "```"), "copy the test into docs/testing.md again")
    }
}
