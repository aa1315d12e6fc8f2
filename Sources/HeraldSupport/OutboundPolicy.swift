package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a server may send requests whose address someone else chose (the provider's webhooks, a simulated device's
/// attachment downloads): public addresses only, unless the operator allowed the host. A URL pointing at a loopback,
/// private, link-local, shared or multicast address (the server's own network, a cloud metadata service) is refused,
/// both when it is set (an address written in the URL, `localhost`) and before every request (what the name resolves
/// to then). The request then connects to the address that was checked (``OutboundTarget``), so a name that resolves
/// to a public address for the check and to an inner one a moment later (DNS rebinding) is not followed.
package struct OutboundPolicy: Sendable {
    /// Hosts (`host` or `host:port`, lowercase) the operator allowed whatever their address. An address allowed this
    /// way (`10.0.0.5` or `10.0.0.5:8080`) may also be reached through any name that resolves to it.
    package let allowedHosts: Set<String>
    /// The option that allows a host, named in refusals (`herald serve --allow-webhook-host`).
    package let allowOption: String
    /// Looks a host name up (``IPAddress/resolve(_:)``; tests give their own answers).
    private let resolve: @Sendable (String) -> [IPAddress]

    package init(
        allowedHosts: [String], allowOption: String,
        resolve: @escaping @Sendable (String) -> [IPAddress] = IPAddress.resolve
    ) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.allowOption = allowOption
        self.resolve = resolve
    }

    /// Why `url` may not be called, judging by what it says (no name lookup); `nil` when it may.
    package func problem(with url: URL) -> String? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return "the URL has no host" }
        // `[fe80::1%25eth0]`: an IPv6 address with a zone ID names a network link of this machine, never a public
        // host (and resolvers read it differently): refused when saved, as it would be when sent.
        if host.contains("%") {
            return "\(host) carries a zone ID (%…), which names a network link of this machine; \(advice)"
        }
        if isAllowed(url) { return nil }
        // A name's one trailing dot (`localhost.`) names the same host.
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        if name == "localhost" || name.hasSuffix(".localhost") {
            return "\(host) is this machine; \(advice)"
        }
        // Every way the resolver reads an address (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`) counts as
        // that address, so what is refused when a request is sent is refused when the URL is saved too.
        if let address = IPAddress(Self.bare(host)) ?? IPAddress(numericHost: name), !address.isPublic {
            return "\(host) is not a public address (\(address)); \(advice)"
        }
        return nil
    }

    /// Where a request to `url` may connect now, after looking up its name: every address it resolves to must be
    /// public (or allowed), and the request connects to the one checked. The lookup runs on a thread of its own,
    /// never on one of the few threads Swift concurrency runs on (a slow resolver would stall every task).
    ///
    /// - Throws: ``OutboundRefusal`` saying why `url` may not be called.
    package func target(for url: URL) async throws(OutboundRefusal) -> OutboundTarget {
        if let problem = problem(with: url) { throw OutboundRefusal(message: problem) }
        let host = url.host.map(Self.bare) ?? ""
        guard !isAllowed(url), IPAddress(host) == nil else { return OutboundTarget(host: host, address: nil) }
        let port = Self.port(of: url)
        let (resolve, allowed) = (resolve, allowedHosts)
        let addresses = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: resolve(host)) }.start()
        }
        guard let first = addresses.first else { throw OutboundRefusal(message: "\(host) does not resolve") }
        if let inner = addresses.first(where: {
            !$0.isPublic && !allowed.contains($0.description) && !allowed.contains("\($0.description):\(port)")
        }) {
            throw OutboundRefusal(message: "\(host) resolves to \(inner), which is not a public address; \(advice)")
        }
        return OutboundTarget(host: host, address: first.description)
    }

    /// A host without the brackets an IPv6 address has in a URL.
    private static func bare(_ host: String) -> String {
        host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }

    private static func port(of url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }

    private func isAllowed(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        if allowedHosts.contains(host) { return true }
        return allowedHosts.contains("\(host):\(Self.port(of: url))")
    }

    private var advice: String {
        "only public addresses are called unless the operator allows the host (\(allowOption))"
    }
}

/// Where a request to a checked URL connects (``OutboundPolicy/target(for:)``).
package struct OutboundTarget: Sendable, Equatable {
    /// The URL's host, which the request still names (its `Host` header and the TLS server name).
    package let host: String
    /// The address checked, to connect to instead of looking `host` up again; `nil` when the URL is an address or
    /// the operator allowed the host (nothing to pin).
    package let address: String?

    /// `[host: address]`, as AsyncHTTPClient's `dnsOverride` takes it.
    package var dnsOverride: [String: String] {
        address.map { [host: $0] } ?? [:]
    }
}

/// Why a URL may not be called (``OutboundPolicy``).
package struct OutboundRefusal: Error, Sendable {
    /// What is wrong with the URL and how an operator allows it.
    package let message: String
}

/// An IPv4 or IPv6 address, to tell public addresses from the rest.
package struct IPAddress: CustomStringConvertible, Sendable {
    /// 4 or 16 bytes.
    package let bytes: [UInt8]

    package init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// An IPv4 address in any form the C resolver reads as one (`inet_aton`): fewer than four parts (`127.1`), one
    /// number (`2130706433`), hexadecimal (`0x7f000001`) or octal (`0177.0.0.1`) parts; `nil` for a name.
    package init?(numericHost text: String) {
        guard !text.isEmpty, text.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == "x" || $0 == "X" }) else {
            return nil
        }
        var v4 = in_addr()
        guard inet_aton(text, &v4) != 0 else { return nil }
        bytes = withUnsafeBytes(of: &v4) { Array($0) }
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether the address is reachable on the public internet: not unspecified, loopback, private (RFC 1918, IPv6
    /// unique local), shared (100.64/10), link-local, benchmarking, multicast or reserved.
    package var isPublic: Bool {
        if bytes.count == 16 {
            let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]
            if Array(bytes.prefix(12)) == mappedPrefix { return IPAddress(bytes: Array(bytes.suffix(4))).isPublic }
            if bytes.allSatisfy({ $0 == 0 }) { return false }  // ::
            if bytes.dropLast().allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return false }  // ::1
            if bytes[0] & 0xfe == 0xfc { return false }  // fc00::/7
            if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return false }  // fe80::/10
            if bytes[0] == 0xff { return false }  // multicast
            return true
        }
        let (a, b) = (bytes[0], bytes[1])
        switch a {
        case 0, 10, 127: return false
        case 100 where b & 0xc0 == 64: return false  // 100.64/10
        case 169 where b == 254: return false
        case 172 where b & 0xf0 == 16: return false
        case 192 where b == 168: return false
        case 192 where b == 0 && bytes[2] == 0: return false
        case 198 where b & 0xfe == 18: return false  // 198.18/15
        case 224...255: return false
        default: return true
        }
    }

    package var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, &copy, &text, socklen_t(text.count))
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Every address `host` resolves to now.
    package static func resolve(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    addresses.append(IPAddress(bytes: withUnsafeBytes(of: &v4) { Array($0) }))
                case AF_INET6:
                    var v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    addresses.append(IPAddress(bytes: withUnsafeBytes(of: &v6) { Array($0) }))
                default: break
                }
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }
}
