import APNSCore
import Testing

@Suite("APNSTopic")
struct APNSTopicTests {
    @Test(
        "bundle IDs with letters, digits, '-' and '.' are fine; anything else says what is wrong",
        arguments: [
            ("com.example.app", nil),
            ("com.example-1.App2.voip", nil),
            ("", "empty"),
            (String(repeating: "a", count: 256), "256 bytes"),
            ("com.example.app!", "'!'"),
            ("com.exämple.app", "'ä'"),
            ("com..app", "empty part"),
            (".com.app", "empty part"),
            ("com.app.", "empty part"),
            ("com..app$", "'$'"),
        ] as [(String, String?)])
    func problems(topic: String, expected: String?) {
        let problem = APNSTopic.problem(with: topic)
        if let expected {
            #expect(problem?.contains(expected) == true, "\(problem ?? "nil")")
        } else {
            #expect(problem == nil)
        }
    }
}
