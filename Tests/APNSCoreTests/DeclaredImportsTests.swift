import Foundation
import Testing

/// Every module imports only what Package.swift says it depends on: a module that builds only because another
/// target happened to bring a library along breaks when that target changes.
@Suite("Every import is a declared dependency")
struct DeclaredImportsTests {
    /// Modules that come with the toolchain.
    static let toolchain: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "Synchronization", "Testing", "XCTest",
        "Dispatch",
        "Glibc", "Musl", "Darwin", "PackageDescription",
        // Apple's, imported only where it exists (HeraldKit's Keychain, `#if canImport(Security)`).
        "Security",
    ]

    @Test("each target's Swift files import only its declared dependencies, the toolchain's modules and itself")
    func importsAreDeclared() throws {
        let targets = try Self.targets()
        #expect(targets.count > 20, "Package.swift was read: \(targets.keys.sorted())")
        for (name, target) in targets {
            let directory = ModuleTableTests.root.appendingPathComponent(target.path)
            for file in Self.swiftFiles(in: directory) {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in text.matches(
                    of: /(?m)^\s*(?:@testable |@_spi\(\w+\) )?(?:package |public |internal )?import ([A-Z]\w*)/)
                {
                    let module = String(match.1)
                    #expect(
                        module == name || Self.toolchain.contains(module) || target.dependencies.contains(module),
                        "\(file.lastPathComponent) (\(name)) imports \(module), which Package.swift does not list")
                }
            }
        }
    }

    /// Each target's folder and the names in its dependency list (Herald's targets and other packages' products).
    static func targets() throws -> [String: (path: String, dependencies: Set<String>)] {
        let text = try String(
            contentsOf: ModuleTableTests.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [String: (path: String, dependencies: Set<String>)] = [:]
        for block in text.split(separator: /\n        \./).dropFirst() {
            let kinds = ["target(", "executableTarget(", "testTarget("]
            guard kinds.contains(where: { block.hasPrefix($0) }),
                let name = block.firstMatch(of: /name: "([A-Za-z]+)"/)?.1
            else { continue }
            let folder = block.hasPrefix("testTarget(") ? "Tests" : "Sources"
            let path = block.firstMatch(of: /path: "([^"]+)"/).map { String($0.1) } ?? "\(folder)/\(name)"
            var dependencies: Set<String> = []
            if let list = block.firstMatch(of: /dependencies: \[((?:[^\[\]]|\[[^\]]*\])*)\]/)?.1 {
                for match in list.matches(of: /(?:^|[\[,\s(])"([A-Za-z0-9]+)"/) { dependencies.insert(String(match.1)) }
                for match in list.matches(of: /\.product\(name: "([A-Za-z0-9]+)"/) {
                    dependencies.insert(String(match.1))
                }
            }
            targets[String(name)] = (path, dependencies)
        }
        return targets
    }

    static func swiftFiles(in directory: URL) -> [URL] {
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        return (files?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
    }
}
