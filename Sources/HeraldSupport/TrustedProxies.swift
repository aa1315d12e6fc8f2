import Foundation
package import HTTPTypes
import NIOCore

/// The reverse proxies (nginx, a load balancer) whose `X-Forwarded-For` names the client: without one configured, the
/// socket's address is the client, and the header (which anyone can send) is ignored.
package struct TrustedProxies: Sendable, Equatable {
    /// One network: an address and how many of its leading bits must match.
    package struct Network: Sendable, Equatable, CustomStringConvertible {
        let bytes: [UInt8]
        let prefix: Int
        package let description: String

        /// Reads `10.0.0.0/8`, `::1/128` or an address alone (all of its bits).
        ///
        /// - Throws: a message naming what is wrong, for a flag's error.
        package init(parsing text: String) throws(TrustedProxies.ParseError) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let bytes = TrustedProxies.bytes(of: String(parts[0])) else {
                throw ParseError(text, "not an IP address or network such as 10.0.0.0/8 or fd00::/8")
            }
            let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let prefix, (0...(bytes.count * 8)).contains(prefix) else {
                throw ParseError(text, "the prefix length is 0 to \(bytes.count * 8) for this address")
            }
            self.bytes = bytes
            self.prefix = prefix
            description = text
        }

        /// Whether `address` (its bytes) is in this network.
        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var left = prefix
            for (mine, theirs) in zip(bytes, address) where left > 0 {
                let bits = min(8, left)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                guard mine & mask == theirs & mask else { return false }
                left -= bits
            }
            return true
        }
    }

    /// A network that does not parse, with why.
    package struct ParseError: Error, CustomStringConvertible {
        package let description: String
        init(_ text: String, _ why: String) { description = "\(text): \(why)" }
    }

    /// The networks trusted; empty: none (the socket's address is the client).
    package var networks: [Network]

    package init(_ networks: [Network] = []) {
        self.networks = networks
    }

    /// The client of a request that came from `socketAddress` with `forwardedFor` (`X-Forwarded-For`'s values, in
    /// order): the socket's address unless it is a trusted proxy; then the right-most address in the header that is
    /// not itself a trusted proxy (what the nearest proxy saw; anything to its left the client could have written).
    package func client(socketAddress: String?, forwardedFor: [String]) -> String {
        guard let socket = socketAddress else { return "unknown" }
        guard !networks.isEmpty, isTrusted(socket) else { return socket }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map(Self.withoutSpaces)
        for hop in hops.reversed() {
            guard Self.bytes(of: hop) != nil else { return socket }
            if !isTrusted(hop) { return hop }
        }
        return socket
    }

    /// A header value's element without the spaces and tabs HTTP allows around it.
    private static func withoutSpaces(_ element: Substring) -> String {
        var text = element
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }

    /// Whether `address` is in one of the trusted networks.
    package func isTrusted(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// An IPv4 or IPv6 address's bytes (an IPv4-mapped IPv6 address as its IPv4 bytes); `nil` for anything else.
    static func bytes(of text: String) -> [UInt8]? {
        guard !text.utf8.contains(UInt8(ascii: "%")), let address = try? SocketAddress(ipAddress: text, port: 0) else {
            return nil
        }
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return Array(bytes.suffix(4))
            }
            return bytes
        default:
            return nil
        }
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`: the addresses a request passed through, the client first (read only from a trusted proxy).
    package static let xForwardedFor = Self("X-Forwarded-For")!
}
