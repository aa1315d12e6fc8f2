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

    /// A connection that could not be made to `address`, explained; `nil` when `error` is not a connect failure.
    ///
    /// - Parameters:
    ///   - error: what the connect threw (or the message a client made of it).
    ///   - address: `host:port`.
    ///   - expected: what should be listening there (`herald gateway or herald up`).
    ///   - option: the flag that sets the address.
    static func connecting(
        _ error: any Error, to address: String, expected: String, option: String
    ) -> CommandFailure? {
        let code = errorNumber(error)
        let text = String(describing: error)
        if code == ECONNREFUSED || text.contains("Connection refused") || text.contains("errno: 111") {
            return CommandFailure(
                "cannot connect to \(address): nothing is listening there",
                next: "is \(expected) running? Start it, or point \(option) at where it listens")
        }
        if text.contains("connectTimeout") || code == ETIMEDOUT || code == EHOSTUNREACH || code == ENETUNREACH {
            return CommandFailure(
                "cannot connect to \(address): no answer (the host is unreachable or a firewall drops the connection)",
                next: "check the address in \(option) and the network")
        }
        if text.contains("NXDOMAIN") || text.contains("Name or service not known")
            || text.contains("unknownHost")
        {
            return CommandFailure(
                "cannot connect to \(address): the host name does not resolve", next: "check the host in \(option)")
        }
        return nil
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
