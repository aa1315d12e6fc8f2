package import Foundation
import TestPacing
package import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program (curl, nghttp, openssl) for a test, without Foundation's `Process`.
///
/// `Process.run()` in the Swift 6.3 toolchain's Foundation crashes now and then (SIGSEGV in
/// `findMaximumOpenFromProcSelfFD`, a read past a `dirent`: swift-corelibs-foundation#5472); a suite that starts
/// hundreds of processes hit it in about one full run in three. This spawns with `posix_spawn`; its pipe is made
/// close-on-exec, so one test's child never holds another's pipe open (NIO's sockets are close-on-exec already).
package enum ChildProcess {
    /// What the program wrote and how it ended.
    package struct Result: Sendable {
        /// Standard output, with standard error after it in the same stream when `mergeErrors` was set.
        package let output: Data
        /// The exit status (128 + the signal when a signal ended it).
        package let status: Int32
    }

    /// A program a test needs is not installed.
    package struct MissingProgram: Error, CustomStringConvertible {
        package let name: String

        package var description: String {
            let package = ChildProcess.debianPackages[name] ?? name
            return "the tests need `\(name)`, which is not on PATH: install it (Debian: apt-get install \(package)); "
                + ".ci/run installs everything the tests use"
        }
    }

    /// The Debian package of each program the tests run.
    static let debianPackages = [
        "curl": "curl", "nghttp": "nghttp2-client", "openssl": "openssl", "python3": "python3",
    ]

    /// Whether `name` is on `PATH`: a test of a program the README's set-up does not install (nghttp) runs only where
    /// it is, as in `.ci/run`, which installs every program the tests use.
    package static func isInstalled(_ name: String) -> Bool { (try? locate(name)) != nil }

    /// Why a test of `name` is skipped where it is not installed, with the package that brings it.
    package static func skipped(_ name: String) -> Comment {
        Comment(rawValue: "needs `\(name)`: apt-get install \(debianPackages[name] ?? name) (.ci/run does)")
    }

    /// The path of `name` on `PATH` (a name with a `/` is taken as a path).
    ///
    /// - Throws: ``MissingProgram`` naming the package to install.
    package static func locate(_ name: String) throws -> String {
        if name.contains("/") { return name }
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
            .split(separator: ":")
        for directory in directories {
            let path = "\(directory)/\(name)"
            if access(path, X_OK) == 0 { return path }
        }
        throw MissingProgram(name: name)
    }

    /// Runs `executable` with `arguments` to its end; its output is read on a thread of its own, so no thread of the
    /// concurrency pool blocks.
    ///
    /// - Parameters:
    ///   - name: the program's name, found on `PATH` (``locate(_:)``), or its path.
    ///   - arguments: its arguments, without the program name.
    ///   - mergeErrors: whether standard error goes to the output too; otherwise it is discarded.
    /// - Returns: what it wrote and its exit status.
    /// - Throws: ``MissingProgram`` when it is not installed, `POSIXError` when it cannot be started.
    package static func run(_ name: String, _ arguments: [String], mergeErrors: Bool = true) async throws
        -> Result
    {
        try await start(name, arguments, mergeErrors: mergeErrors).result()
    }

    /// A program started and not yet waited for.
    package struct Running: Sendable {
        /// Its process ID.
        package let pid: pid_t
        private let reader: Int32

        fileprivate init(pid: pid_t, reader: Int32) {
            self.pid = pid
            self.reader = reader
        }

        /// Sends it `signal` (SIGKILL: as iOS ends an extension).
        package func kill(_ signal: Int32 = SIGKILL) {
            _ = Glibc.kill(pid, signal)
        }

        /// Waits for its end: what it wrote and its exit status (128 + the signal when a signal ended it).
        package func result() async -> Result {
            let (reader, child) = (self.reader, pid)
            return await withCheckedContinuation { continuation in
                Thread {
                    let handle = FileHandle(fileDescriptor: reader, closeOnDealloc: true)
                    let output = handle.readDataToEndOfFile()
                    var status: Int32 = 0
                    while waitpid(child, &status, 0) == -1, errno == EINTR {}
                    let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                    continuation.resume(returning: Result(output: output, status: code))
                }.start()
            }
        }
    }

    /// Starts `executable` with `arguments`; ``Running/result()`` waits for it (call it once, always: it reaps the
    /// process).
    ///
    /// - Throws: ``MissingProgram`` when it is not installed, `POSIXError` when it cannot be started.
    package static func start(_ name: String, _ arguments: [String], mergeErrors: Bool = true) throws -> Running {
        ServerSlots.requireSlot("a process (`\(name)`)")
        let executable = try locate(name)
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // (pipe2 is not in Swift's Glibc module; a spawn between these lines could still inherit the pipe, which only
        // delays this child's end-of-output until that other child exits.)
        for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        if mergeErrors {
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
        }
        return Running(pid: pid, reader: pipe[0])
    }
}
