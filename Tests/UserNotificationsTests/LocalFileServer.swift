import Foundation
import TestPacing

#if canImport(Glibc)
    import Glibc
#endif

/// A small real HTTP/1.1 server on 127.0.0.1 and a port the system picks, serving fixture files by name, so the
/// seeds' download code runs against a real socket.
final class LocalFileServer: Sendable {
    let port: UInt16
    private let socket: Int32

    init() throws {
        ServerSlots.requireSlot("a file server")
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socket = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [fd] in Self.serve(fd) }
    }

    /// The URL of a fixture on this server.
    func url(_ name: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(name)")! }

    deinit { shutdown(socket, Int32(SHUT_RDWR)); close(socket) }

    private static func serve(_ listener: Int32) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 8192)
            let count = read(client, &buffer, buffer.count)
            let requestLine = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self).split(separator: " ")
            let name = requestLine.count > 1 ? String(requestLine[1].dropFirst()) : ""
            let file = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)
            let body = file.flatMap { try? Data(contentsOf: $0) }
            let head =
                body == nil
                ? "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                : "HTTP/1.1 200 OK\r\nContent-Length: \(body!.count)\r\nConnection: close\r\n\r\n"
            let response = Array(head.utf8) + Array(body ?? Data())
            _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            close(client)
        }
    }
}
