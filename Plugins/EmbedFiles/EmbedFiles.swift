import Foundation
import PackagePlugin

/// Puts every file under a target's `Resources` folder into the target's code (`EmbeddedFiles.swift`), so that the
/// built binary carries them: nothing to ship next to it, nothing to find at run time.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = target.directoryURL.appending(path: "Resources")
        let files = try Self.files(under: root)
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) files of \(target.name)",
                executable: try context.tool(named: "EmbedFilesTool").url,
                arguments: [output.path(), root.path()] + files.map { $0.path() },
                inputFiles: files,
                outputFiles: [output])
        ]
    }

    /// Every regular file under `root`, in a stable order.
    private static func files(under root: URL) throws -> [URL] {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in walker
        where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            files.append(url)
        }
        return files.sorted { $0.path() < $1.path() }
    }
}
