import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Tries every port a command will listen on before it starts anything, so that all the ports another process holds
/// are named at once, before any secret is made or printed.
enum PortCheck {
    /// A port a command will listen on.
    struct Port {
        /// What listens there, for the message ("the provider API").
        var what: String
        var host: String
        var port: Int
        /// The flag that chooses another port.
        var option: String
    }

    /// The ports of `ports` that cannot be listened on (0 is never busy), as one failure naming each with its flag;
    /// `nil` when all are free.
    static func unavailable(_ ports: [Port]) -> CommandFailure? {
        let taken = ports.filter { $0.port != 0 }.compactMap { port in
            bindError(host: port.host, port: port.port).map { (port, $0) }
        }
        guard !taken.isEmpty else { return nil }
        let lines = taken.map { port, code in
            "\(port.what) on \(port.host):\(port.port): \(reason(code)) (\(port.option))"
        }
        let busy = taken.filter { $0.1 == EADDRINUSE }.map { String($0.0.port) }
        var next = "choose free ports with the flags above (0 picks one)"
        if !busy.isEmpty {
            next =
                "stop what holds \(busy.count == 1 ? "it" : "them") (`ss -ltnp` names the process: another herald up?), "
                + "or " + next
        }
        let count = taken.count == 1 ? "a port" : "\(taken.count) ports"
        return CommandFailure(
            "cannot start: \(count) cannot be listened on; nothing was started\n  " + lines.joined(separator: "\n  "),
            next: next)
    }

    private static func reason(_ code: Int32) -> String {
        switch code {
        case EADDRINUSE: "another process has that port"
        case EACCES: "ports below 1024 need root"
        case EADDRNOTAVAIL: "this machine has no such address"
        case EDOM: "a port is 1 to 65535, or 0 for any free one"
        default: String(cString: strerror(code))
        }
    }

    /// The `errno` binding a listening TCP socket to `host`:`port` gives, or `nil` when it can.
    private static func bindError(host: String, port: Int) -> Int32? {
        guard let port = UInt16(exactly: port) else { return EDOM }
        let text = host == "localhost" ? "127.0.0.1" : host
        guard let address = try? SocketAddress(ipAddress: text, port: Int(port)) else { return EADDRNOTAVAIL }
        let descriptor = socket(text.contains(":") ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        // As the servers do: a port whose last connections are still closing (TIME_WAIT) is free.
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = address.withSockAddr { pointer, size in bind(descriptor, pointer, socklen_t(size)) }
        guard result == 0 else { return errno }
        return listen(descriptor, 1) == 0 ? nil : errno
    }
}
