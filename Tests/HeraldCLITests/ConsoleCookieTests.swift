import Testing

@testable import HeraldConsole

@Suite("The console's session cookie")
struct ConsoleCookieTests {
    @Test("over HTTPS it is Secure, so a browser never sends it in plain HTTP; over HTTP it cannot be")
    func secure() {
        #expect(ConsoleRequest.cookie(for: "abc", secure: true).hasSuffix("; Secure"))
        #expect(!ConsoleRequest.cookie(for: "abc", secure: false).contains("Secure"))
        #expect(ConsoleRequest.cookie(for: nil, secure: true).contains("Max-Age=0; Secure"))
    }
}
