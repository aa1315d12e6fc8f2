import Testing

@Suite("herald send's connection and concurrency flags")
struct SendLimitsTests {
    @Test(
        "out of range, each flag is refused with its range before anything is sent; 2^63-1 does not trap",
        arguments: [
            ("--connections", "0", "--connections is 1 to 1000; got 0"),
            ("--connections", "-1", "--connections is 1 to 1000; got -1"),
            ("--connections", "1001", "--connections is 1 to 1000; got 1001"),
            ("--connections", "9223372036854775807", "--connections is 1 to 1000"),
            ("--concurrency", "0", "--concurrency is 1 to 1000000"),
            ("--concurrency", "-1", "--concurrency is 1 to 1000000"),
            ("--concurrency", "9223372036854775807", "got 9223372036854775807"),
            ("--concurrency", "4611686018427387904", "got 4611686018427387904"),
        ])
    func refused(flag: String, value: String, message: String) async {
        let result = await runHerald([
            "send", "--url", "https://127.0.0.1:1", "--token", String(repeating: "ab", count: 32), "--topic",
            "com.example.app", "--body", "x", "\(flag)=\(value)",
        ])
        #expect(result.status != 0)
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
    }
}
