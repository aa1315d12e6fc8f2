import Foundation
import HeraldSupport
import Synchronization
import Testing

@Suite("Which addresses a server may call on someone else's say-so")
struct OutboundPolicyTests {
    @Test(
        "loopback, private, shared, link-local, multicast and reserved addresses are not public",
        arguments: [
            "127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1", "169.254.169.254",
            "0.0.0.0", "224.0.0.1", "198.18.0.1", "::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "ff02::1",
            "::ffff:10.0.0.1", "::ffff:127.0.0.1",
        ])
    func notPublic(address: String) throws {
        #expect(try #require(IPAddress(address)).isPublic == false)
    }

    @Test("ordinary internet addresses are public", arguments: ["8.8.8.8", "172.32.0.1", "1.1.1.1", "2606:4700::1111"])
    func isPublic(address: String) throws {
        #expect(try #require(IPAddress(address)).isPublic)
    }

    @Test("a URL is refused by what it says; an allowed host or host:port passes; a public literal needs no lookup")
    func urls() async throws {
        let policy = OutboundPolicy(allowedHosts: ["127.0.0.1:8000"], allowOption: "--allow-x")
        #expect(
            policy.problem(with: try #require(URL(string: "http://169.254.169.254/")))?.contains("--allow-x") == true)
        #expect(policy.problem(with: try #require(URL(string: "http://localhost/"))) != nil)
        #expect(policy.problem(with: try #require(URL(string: "http://[::1]:9/"))) != nil)
        #expect(policy.problem(with: try #require(URL(string: "http://127.0.0.1:9/"))) != nil)
        #expect(policy.problem(with: try #require(URL(string: "http://127.0.0.1:8000/a.jpg"))) == nil)
        // A zone ID names a link of this machine: refused when the URL is saved, not only when it is called.
        for text in [
            "http://[::1%25lo]:18999/hook", "http://[fe80::1%25eth0]/hook", "http://[2606:4700::1111%25eth0]/",
        ] {
            let url = try #require(URL(string: text))
            #expect(policy.problem(with: url)?.contains("zone ID") == true, "\(text)")
        }
        let literal = try await policy.target(for: try #require(URL(string: "https://[2606:4700::1111]/")))
        #expect(literal.host == "2606:4700::1111" && literal.address == nil)
        #expect(try await policy.target(for: try #require(URL(string: "https://8.8.8.8/hook"))).dnsOverride.isEmpty)
    }

    @Test("a name is looked up once, every address must be public, and the request is pinned to the one checked")
    func pinned() async throws {
        let lookups = Mutex(0)
        let policy = OutboundPolicy(allowedHosts: ["10.9.8.7:8443"], allowOption: "--allow-x") { host in
            lookups.withLock { $0 += 1 }
            switch host {
            case "hooks.example": return [IPAddress("8.8.4.4")!, IPAddress("2606:4700::1111")!]
            case "rebound.example": return [IPAddress("8.8.4.4")!, IPAddress("192.168.0.10")!]
            case "inner.example": return [IPAddress("10.9.8.7")!]
            default: return []
            }
        }
        let target = try await policy.target(for: try #require(URL(string: "https://hooks.example/hook")))
        #expect(target.dnsOverride == ["hooks.example": "8.8.4.4"])
        #expect(lookups.withLock { $0 } == 1)
        let rebound = await #expect(throws: OutboundRefusal.self) {
            try await policy.target(for: try #require(URL(string: "https://rebound.example/hook")))
        }
        #expect(rebound?.message.contains("resolves to 192.168.0.10") == true)
        #expect(rebound?.message.contains("--allow-x") == true)
        // An allowed address is allowed through any name, on the allowed port only.
        let inner = try await policy.target(for: try #require(URL(string: "https://inner.example:8443/")))
        #expect(inner.address == "10.9.8.7")
        await #expect(throws: OutboundRefusal.self) {
            try await policy.target(for: try #require(URL(string: "https://inner.example/")))
        }
        await #expect(throws: OutboundRefusal.self) {
            try await policy.target(for: try #require(URL(string: "https://nowhere.example/")))
        }
    }
}
