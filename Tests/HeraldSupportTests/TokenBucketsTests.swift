import HeraldSupport
import Testing

@Suite("Token buckets: a rate, a burst, and a bounded memory of keys")
struct TokenBucketsTests {
    @Test("a burst is spent at once, then one token comes back every 60/rate seconds; other keys are not touched")
    func rateAndBurst() throws {
        let buckets = TokenBuckets(.init(perMinute: 6, burst: 3))
        for _ in 0..<3 { #expect(buckets.take("a", now: 0) == nil) }
        let wait = try #require(buckets.take("a", now: 0))
        #expect(abs(wait - 10) < 1e-9, "6 a minute: one every 10 s")
        #expect(buckets.take("b", now: 0) == nil, "another key has its own bucket")
        #expect(buckets.take("a", now: 9.9) != nil)
        #expect(buckets.take("a", now: 10) == nil)
        // A long quiet time refills only up to the burst.
        for _ in 0..<3 { #expect(buckets.take("a", now: 10_000) == nil) }
        #expect(buckets.take("a", now: 10_000) != nil)
    }

    @Test("shared by 3 processes, each keeps a third of the rate and the burst (at least 1); 0 or -1 shares is 1")
    func shares() throws {
        let buckets = TokenBuckets(.init(perMinute: 6, burst: 3))
        #expect(buckets.take("a", now: 0, shares: 3) == nil)
        let wait = try #require(buckets.take("a", now: 0, shares: 3))
        #expect(abs(wait - 30) < 1e-9, "2 a minute: one every 30 s")
        let tiny = TokenBuckets(.init(perMinute: 1, burst: 1))
        #expect(tiny.take("a", now: 0, shares: 1_000_000) == nil, "a burst of at least one")
        #expect(tiny.take("a", now: 0, shares: 1_000_000) != nil)
        for shares in [0, -1, Int.min] {
            let whole = TokenBuckets(.init(perMinute: 6, burst: 3))
            for _ in 0..<3 { #expect(whole.take("a", now: 0, shares: shares) == nil) }
            #expect(whole.take("a", now: 0, shares: shares) != nil)
        }
    }

    @Test("0 a minute is no limit")
    func off() {
        let buckets = TokenBuckets(.init(perMinute: 0))
        for _ in 0..<10_000 { #expect(buckets.take("a", now: 0) == nil) }
        #expect(buckets.count == 0)
    }

    @Test("at most keyCapacity keys are remembered, full buckets forgotten first, whatever a flood of keys does")
    func boundedMemory() {
        let buckets = TokenBuckets(.init(perMinute: 60, burst: 1), keyCapacity: 100)
        for index in 0..<100 { #expect(buckets.take("k\(index)", now: 0) == nil) }
        #expect(buckets.take("k0", now: 0) != nil, "k0 spent its burst")
        for index in 100..<10_000 { _ = buckets.take("k\(index)", now: 0) }
        #expect(buckets.count <= 100)
        // Once their buckets are full again they are the same as never seen.
        #expect(buckets.take("k5", now: 2) == nil)
    }

    @Test("extreme times do not trap: a clock that jumps far, or back")
    func extremeTimes() {
        let buckets = TokenBuckets(.init(perMinute: 100_000_000, burst: 100_000_000))
        #expect(buckets.take("a", now: 1e30) == nil)
        #expect(buckets.take("a", now: -1) == nil)
        #expect(buckets.take("a", now: .greatestFiniteMagnitude) == nil)
    }
}

@Suite("Trusted proxies: who the client is")
struct TrustedProxiesTests {
    @Test("networks parse (IPv4, IPv6, an address alone) and refuse what is not one, naming why")
    func parsing() throws {
        for text in ["10.0.0.0/8", "127.0.0.1", "::1", "fd00::/8", "0.0.0.0/0", "::/0"] {
            #expect(throws: Never.self) { try TrustedProxies.Network(parsing: text) }
        }
        for text in ["10.0.0.0/33", "fd00::/129", "example.com", "10.0.0.0/-1", "10.0.0.0/8/8", "", "fe80::1%eth0"] {
            #expect(throws: TrustedProxies.ParseError.self) { try TrustedProxies.Network(parsing: text) }
        }
    }

    @Test("behind a trusted proxy the right-most untrusted address of X-Forwarded-For; otherwise the socket's")
    func client() throws {
        let proxies = TrustedProxies([
            try .init(parsing: "10.0.0.0/8"), try .init(parsing: "::1"),
        ])
        #expect(proxies.client(socketAddress: "203.0.113.1", forwardedFor: ["198.51.100.1"]) == "203.0.113.1")
        #expect(proxies.client(socketAddress: "10.1.2.3", forwardedFor: ["198.51.100.1"]) == "198.51.100.1")
        #expect(
            proxies.client(socketAddress: "10.1.2.3", forwardedFor: ["1.1.1.1, 198.51.100.1", "10.9.9.9"])
                == "198.51.100.1", "the client's own words on the left are skipped")
        #expect(proxies.client(socketAddress: "::1", forwardedFor: ["2001:db8::5"]) == "2001:db8::5")
        #expect(proxies.client(socketAddress: "10.1.2.3", forwardedFor: []) == "10.1.2.3")
        #expect(proxies.client(socketAddress: "10.1.2.3", forwardedFor: ["not an address"]) == "10.1.2.3")
        #expect(proxies.client(socketAddress: "::ffff:10.0.0.1", forwardedFor: ["192.0.2.1"]) == "192.0.2.1")
        #expect(TrustedProxies().client(socketAddress: "10.1.2.3", forwardedFor: ["1.2.3.4"]) == "10.1.2.3")
        #expect(proxies.client(socketAddress: nil, forwardedFor: ["1.2.3.4"]) == "unknown")
    }
}
