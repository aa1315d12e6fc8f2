import Foundation

/// A file an option names (`--auth-key`'s key, `--cert`, `--ca`): read, or a message that says which of the ways it
/// could not be read it was (no such file, a `~` the shell left unexpanded, a folder, no permission).
enum OptionFile {
    /// The file's bytes.
    ///
    /// - Throws: ``UsageError`` naming `option`, the path and what to do.
    static func read(_ path: String, option: String) throws(UsageError) -> Data {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isFolder) else {
            if path.hasPrefix("~") {
                throw UsageError(
                    "\(option): no file \(path): the shell expands ~ only at the start of a word, not after ':' or "
                        + "'='; write the full path (\(path.replacingOccurrences(of: "~", with: "$HOME", options: .anchored)))"
                )
            }
            throw UsageError("\(option): no file \(path) (from \(manager.currentDirectoryPath))")
        }
        if isFolder.boolValue { throw UsageError("\(option): \(path) is a folder, not a file") }
        guard manager.isReadableFile(atPath: path), let data = manager.contents(atPath: path) else {
            throw UsageError(
                "\(option): \(path) exists but cannot be read (permission denied): give this user read access, for "
                    + "example chmod 600 and chown to it")
        }
        return data
    }
}
