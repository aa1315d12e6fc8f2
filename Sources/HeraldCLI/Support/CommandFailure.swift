import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// A command that could not do its work, said the one way every command says it: what failed (with the address or
/// file), the likely cause, and the next step. Exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    /// What failed, with the address or file and the likely cause.
    let message: String
    /// What to do about it.
    let next: String?

    init(_ message: String, next: String? = nil) {
        self.message = message
        self.next = next
    }

    var description: String {
        "error: \(message)" + (next.map { "\n  next: \($0)" } ?? "")
    }

    /// A listener that could not bind `host:port`, explained; `nil` when `error` is not a bind failure.
    ///
    /// - Parameters:
    ///   - error: what the bind threw.
    ///   - what: the listener (`the local APNs`).
    ///   - host: the address it tried.
    ///   - port: the port it tried.
    ///   - option: the flag that chooses another port.
    /// - Returns: the failure to report, or `nil` to report `error` as it is.
    static func listening(
        _ error: any Error, what: String, host: String, port: Int, option: String
    ) -> CommandFailure? {
        guard let code = errorNumber(error) else { return nil }
        switch code {
        case EADDRINUSE:
            return CommandFailure(
                "\(what) cannot listen on \(host):\(port): another process has that port",
                next: "stop what holds it (`ss -ltnp 'sport = :\(port)'` names it), or choose a free port with "
                    + "\(option) PORT (0 picks one)")
        case EACCES:
            return CommandFailure(
                "\(what) cannot listen on \(host):\(port): ports below 1024 need root",
                next: "choose a port above 1023 with \(option) PORT")
        case EADDRNOTAVAIL:
            return CommandFailure(
                "\(what) cannot listen on \(host):\(port): this machine has no such address",
                next: "use an address of this machine (127.0.0.1, 0.0.0.0) with --host")
        default:
            return nil
        }
    }

    /// The `errno` inside an error NIO threw, looking through a failed connection's attempts.
    private static func errorNumber(_ error: any Error) -> Int32? {
        if let io = error as? IOError { return io.errnoCode }
        if let connection = error as? NIOConnectionError {
            return connection.connectionErrors.compactMap { errorNumber($0.error) }.first
        }
        return nil
    }
}
