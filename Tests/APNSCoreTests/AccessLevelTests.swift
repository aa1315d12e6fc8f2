import Foundation
import Testing

/// `public` is a product's API: a module that is in no library product declares nothing `public` (`package` is what
/// Herald's other modules use), so what users can call is what the products say.
@Suite("Only products declare public API")
struct AccessLevelTests {
    @Test("no module outside a library product declares anything public")
    func nothingPublicOutsideProducts() throws {
        let text = try String(
            contentsOf: ModuleTableTests.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var inProducts: Set<String> = []
        for product in text.matches(of: /\.library\(\s*name: "[A-Za-z]+",\s*targets: \[([^\]]*)\]/) {
            for name in product.1.matches(of: /"([A-Za-z]+)"/) { inProducts.insert(String(name.1)) }
        }
        #expect(inProducts.contains("APNSCore") && inProducts.contains("HeraldTesting"), "\(inProducts)")
        let targets = try DeclaredImportsTests.targets().filter { $0.value.path.hasPrefix("Sources/") }
        for (name, target) in targets where !inProducts.contains(name) {
            let directory = ModuleTableTests.root.appendingPathComponent(target.path)
            for file in DeclaredImportsTests.swiftFiles(in: directory) {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                for (number, line) in lines.enumerated() where line.firstMatch(of: /^\s*public\s/) != nil {
                    Issue.record("\(file.lastPathComponent):\(number + 1) (\(name), in no product) is public: \(line)")
                }
            }
        }
    }
}
