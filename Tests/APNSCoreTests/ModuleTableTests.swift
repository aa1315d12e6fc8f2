import Foundation
import Testing

/// docs/architecture.md's module table must tell the same story as Package.swift: a row for every module, and for
/// each the same Herald modules it depends on.
@Suite("docs/architecture.md's module table matches Package.swift")
struct ModuleTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("every module has a row whose Herald dependencies are Package.swift's")
    func moduleTable() throws {
        let package = try Self.packageModules()
        let table = try Self.documentedModules(known: Set(package.keys))
        #expect(Set(table.keys) == Set(package.keys), "modules in Package.swift but not the table, or the reverse")
        for (module, dependencies) in package {
            #expect(
                table[module] == dependencies,
                "\(module): the table says \(table[module] ?? []), Package.swift says \(dependencies)")
        }
    }

    /// Herald's own modules (not tests, not test support) and the Herald modules each depends on.
    static func packageModules() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        // Products are other packages' modules: only quoted names outside `.product(...)` are Herald's.
        let withoutProducts = text.replacing(/\.product\([^)]*\)/, with: "")
        var modules: [String: Set<String>] = [:]
        for block in withoutProducts.split(separator: /\n        \./).dropFirst() {
            guard block.hasPrefix("target(") || block.hasPrefix("executableTarget("),
                let name = block.firstMatch(of: /name: "([A-Za-z]+)"/)?.1, !block.contains("path: \"Tests/")
            else { continue }
            var dependencies: Set<String> = []
            if let list = block.firstMatch(of: /dependencies: \[((?:[^\[\]]|\[[^\]]*\])*)\]/)?.1 {
                for match in list.matches(of: /"([A-Za-z]+)"/) { dependencies.insert(String(match.1)) }
            }
            modules[String(name)] = dependencies
        }
        return modules
    }

    /// The table's modules (the first name in backticks of each row) and the Herald modules of its last column.
    static func documentedModules(known: Set<String>) throws -> [String: Set<String>] {
        let text = try String(
            contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let section = text.split(separator: "## Modules")[1].split(separator: "\n## ")[0]
        var modules: [String: Set<String>] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let columns = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = columns[0].firstMatch(of: /`([A-Za-z]+)`/)?.1, let last = columns.last else { continue }
            let words = last.matches(of: /[A-Za-z]+/).map { String($0.0) }
            modules[String(name)] = Set(words.filter { known.contains($0) && $0 != String(name) })
        }
        return modules
    }
}
