import Foundation

/// The pages' scripts, style sheet and icons, read once from the module's resources.
struct ConsoleAssets: Sendable {
    struct Asset: Sendable {
        var contentType: String
        var data: Data
    }

    private let files: [String: Asset]

    init() throws {
        let folder = try ConsoleResources.folder("assets")
        var files: [String: Asset] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let type: String
            switch (name as NSString).pathExtension {
            case "js": type = "text/javascript; charset=utf-8"
            case "css": type = "text/css; charset=utf-8"
            case "svg": type = "image/svg+xml"
            default: continue
            }
            files[name] = Asset(contentType: type, data: try Data(contentsOf: folder.appendingPathComponent(name)))
        }
        self.files = files
    }

    /// The asset called `name`; `nil` for any name not shipped (so no path can reach another file).
    func asset(named name: String) -> Asset? { files[name] }
}

/// Where the module's resources are.
enum ConsoleResources {
    /// The resource folder `name` (`templates` or `assets`).
    static func folder(_ name: String) throws -> URL {
        // The copied folder is `Resources` inside the bundle; on Linux the bundle's resource URL is that folder.
        guard
            let url = Bundle.module.url(forResource: name, withExtension: nil)
                ?? Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Resources")
        else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [NSLocalizedDescriptionKey: "the console's resource folder \(name) is missing"])
        }
        return url
    }
}
