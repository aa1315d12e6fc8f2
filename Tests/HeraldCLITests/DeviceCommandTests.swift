import Foundation
import Testing

@Suite("herald device")
struct DeviceCommandTests {
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: path)
        return path.path
    }

    @Test("no app, an unreadable or wrong manifest, a bad gateway URL or CA: exit 2 naming the problem")
    func badUsage() async throws {
        let good = try Self.file(#"{"bundleID": "com.example.app"}"#)
        let cases: [([String], String)] = [
            (["device"], "give at least one --app"),
            (["device", "--app", "/no/such/app.json"], "cannot read /no/such/app.json"),
            (
                [
                    "device", "--app",
                    try Self.file(#"{"bundleID": "com.example.app", "serviceExtension": [{"zap": 1}]}"#),
                ],
                "serviceExtension[0]: a step is one of"
            ),
            (["device", "--app", good, "--gateway", "http://127.0.0.1:2197"], "--gateway is the gateway's https URL"),
            (["device", "--app", good, "--ca-file", "/no/such/ca.pem"], "cannot read /no/such/ca.pem"),
        ]
        for (arguments, message) in cases {
            let result = await runHerald(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        }
    }
}
