import Foundation
import Testing

/// docs/architecture.md names types, modules and libraries in backticks; each must exist: declared in Herald's
/// sources, tests or tools, a string the sources use (an APNs reason, a module in Package.swift), or one of the other
/// libraries' names listed here. A renamed or removed type fails this test until the document says so.
@Suite("docs/architecture.md names only what exists")
struct ArchitectureNamesTests {
    /// Names of Apple's and other libraries the document speaks of.
    static let elsewhere: Set<String> = [
        "Clock", "EmbeddedEventLoop", "JSONDecoder", "JSONSerialization", "NIOHTTP2Handler", "NSCopying",
        "NSMutableCopying", "NSObject", "Service", "ServiceGroup",
        // SQL and HTTP/2 words.
        "EXISTS", "GOAWAY", "CANCEL",
    ]

    @Test("every capitalized name in backticks is declared, used as a string, or another library's")
    func namesExist() throws {
        let root = ModuleTableTests.root
        let document = try String(
            contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let names = Set(document.matches(of: /`([A-Z][A-Za-z0-9]+)`/).map { String($0.1) })
        var code = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for folder in ["Sources", "Tests", "Fuzz", "Plugins", "Benchmarks"] {
            for file in DeclaredImportsTests.swiftFiles(in: root.appendingPathComponent(folder)) {
                code += try String(contentsOf: file, encoding: .utf8)
            }
        }
        var known = Set(
            code.matches(of: /\b(?:class|struct|enum|protocol|actor|typealias|func)\s+([A-Za-z0-9]+)/)
                .map { String($0.1) })
        known.formUnion(code.matches(of: /"([A-Za-z0-9]+)"/).map { String($0.1) })
        #expect(names.count > 100, "the document names its types in backticks")
        for name in names.sorted() where !known.contains(name) && !Self.elsewhere.contains(name) {
            Issue.record("docs/architecture.md names `\(name)`, which nothing declares")
        }
    }
}
