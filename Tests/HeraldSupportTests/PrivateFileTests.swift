import Foundation
import HeraldSupport
import Testing

@Suite("Private files")
struct PrivateFileTests {
    @Test("a file is written 0600 in a 0700 folder")
    func modes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("private-\(UUID())/inner")
        let file = folder.appendingPathComponent("secret")
        try PrivateFile.write(Data("s".utf8), to: file)
        #expect(try String(contentsOf: file, encoding: .utf8) == "s")
        let fileMode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
        #expect(fileMode == 0o600 && folderMode == 0o700)
    }

    @Test("writers of one file at the same time in one process all succeed, and one of them wins whole")
    func concurrentWriters() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("private-\(UUID())/secret")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<32 {
                group.addTask {
                    try PrivateFile.write(Data(String(repeating: "\(index % 10)", count: 4096).utf8), to: file)
                }
            }
            try await group.waitForAll()
        }
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.count == 4096 && Set(text).count == 1)
    }
}
