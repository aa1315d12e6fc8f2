import Foundation

/// The pages' scripts and style sheet, from the files embedded in the binary.
struct ConsoleAssets: Sendable {
    struct Asset: Sendable {
        var contentType: String
        var data: Data
    }

    private let files: [String: Asset]

    init() {
        var files: [String: Asset] = [:]
        for (name, data) in ConsoleResources.files(in: "assets") {
            let type: String
            switch (name as NSString).pathExtension {
            case "js": type = "text/javascript; charset=utf-8"
            case "css": type = "text/css; charset=utf-8"
            case "svg": type = "image/svg+xml"
            default: continue
            }
            files[name] = Asset(contentType: type, data: data)
        }
        self.files = files
    }

    /// The asset called `name`; `nil` for any name not shipped (so no path can reach another file).
    func asset(named name: String) -> Asset? { files[name] }
}

/// The files of `Sources/HeraldConsole/Resources`, which the `EmbedFiles` build plugin puts into the binary.
enum ConsoleResources {
    /// The files of folder `folder` (`templates` or `assets`), by file name.
    static func files(in folder: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for (path, base64) in EmbeddedFiles.base64 where path.hasPrefix(folder + "/") {
            // Safety: the plugin wrote the text with `base64EncodedString()`.
            files[String(path.dropFirst(folder.count + 1))] = Data(base64Encoded: base64)!
        }
        return files
    }
}
