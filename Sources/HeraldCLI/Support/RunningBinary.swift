import Foundation

/// The herald binary this process is: how to run it again in a printed command, and whether it is a debug build.
enum RunningBinary {
    /// Whether this is a debug build: about 100 times slower on the hot paths than `swift build -c release`.
    static var isDebugBuild: Bool {
        #if DEBUG
            return true
        #else
            return false
        #endif
    }

    /// The command that runs this binary from any folder, for printed examples and the console's copies: `herald`
    /// when that is how it was run (found on the `PATH`), else its absolute path.
    static var command: String {
        let invoked = CommandLine.arguments.first ?? "herald"
        guard invoked.contains("/") else { return invoked }
        return URL(fileURLWithPath: invoked).standardizedFileURL.path
    }

    /// Said once before a bulk send or in a banner from a debug build.
    static let releaseAdvice =
        "this is a debug build of herald, about 100 times slower than a release build for bulk sends: "
        + "build one with `swift build -c release --product herald` and run .build/release/herald"
}
