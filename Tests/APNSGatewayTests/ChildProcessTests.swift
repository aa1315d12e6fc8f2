import GatewayTestSupport
import TestPacing
import Testing

@Suite("The programs tests run: found on PATH, or named with the package that installs them", .startsServers)
struct ChildProcessTests {
    @Test("curl is found on PATH; a missing program says what to install")
    func locate() async throws {
        #expect(try ChildProcess.locate("curl").hasSuffix("/curl"))
        let missing = #expect(throws: ChildProcess.MissingProgram.self) { try ChildProcess.locate("nghttp-missing") }
        #expect(missing?.description.contains("apt-get install") == true)
        let result = try await ChildProcess.run("curl", ["--version"])
        #expect(result.status == 0 && String(decoding: result.output, as: UTF8.self).hasPrefix("curl "))
    }
}
