import APNSCore
import Foundation
import PropertyBased
import Testing

/// Every public parser of APNSCore fed numbers from the whole range of what a client can write: the edges of the
/// integer and floating-point types, and random ones across them. A trap would end the test process.
@Suite("Extreme numbers through APNSCore's parsers")
struct ExtremeNumberPropertyTests {
    /// The numbers at the edges of their types, as a client would write them.
    static let edges = [
        "0", "-0", "-1", "1", "2147483647", "2147483648", "-2147483649", "9007199254740993", "9223372036854775295",
        "9223372036854775296", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "99999999999999999999999", "1e30", "-1e30", "1e308",
        "1.7976931348623157e308", "1e400", "-1e400", "4.9e-324", "0.5", "-0.0", "1E+2", "253402300799",
        "253402300800",
    ]

    /// Number literals: an edge, any 64-bit integer, or a double anywhere in its range.
    static let literals = Gen<String>.oneOf(
        Gen<String?>.element(of: edges).map { $0 ?? "0" },
        Gen.int64().map { String($0) },
        Gen.double(in: -1e300...1e300).map { String($0) },
        Gen.int(in: -400...400).map { "1e\($0)" }
    )

    @Test("apns-expiration: every value parses or is refused; one that parses writes back within 64 bits")
    func expiration() async {
        await propertyCheck(count: 2000, input: Self.literals) { text in
            guard let expiration = APNSExpiration(headerValue: text) else { return }
            let written = expiration.headerValue.flatMap { Int64($0) }
            #expect(written != nil, "\(text) wrote back \(String(describing: expiration.headerValue))")
            let now = Date()
            #expect(expiration.deadline(acceptedAt: now) <= now.addingTimeInterval(30 * 86_400 + 1))
        }
    }

    @Test("the linter reads any number in any header and any aps key without trapping")
    func linter() async {
        await propertyCheck(count: 1000, input: Self.literals) { text in
            let body =
                #"{"aps":{"alert":"x","badge":\#(text),"relevance-score":\#(text),"timestamp":\#(text),"#
                + #""stale-date":\#(text),"dismissal-date":\#(text),"content-available":\#(text),"#
                + #""sound":{"name":"a","critical":\#(text),"volume":\#(text)}}}"#
            for pushType in ["alert", "liveactivity", "background"] {
                _ = APNSLinter.lint(
                    APNSLinter.Request(
                        body: Data(body.utf8), pushType: pushType, priority: text, topic: "com.example.app",
                        expiration: text))
            }
        }
    }

    @Test("a provider token's age is judged at any iat, never trapping")
    func providerTokenAge() async {
        await propertyCheck(count: 2000, input: Self.literals) { text in
            guard let seconds = Double(text), !seconds.isNaN else { return }
            let problem = APNSProviderTokenPolicy.ageProblem(
                issuedAt: Date(timeIntervalSince1970: seconds), now: Date())
            if abs(seconds - Date().timeIntervalSince1970) > 7200 { #expect(problem != nil) }
        }
    }

    @Test("a JSON number's integer view is exact or nil; the clamped conversion is monotonic")
    func jsonNumbers() async {
        await propertyCheck(count: 2000, input: Self.literals, Self.literals) { first, second in
            guard case .number(let a)? = try? JSONValue(parsing: Data(first.utf8)),
                case .number(let b)? = try? JSONValue(parsing: Data(second.utf8))
            else { return }
            if let exact = a.intValue { #expect(Double(exact) == a.doubleValue || a.literal.contains("e")) }
            let (x, y) = (a.doubleValue, b.doubleValue)
            if x <= y, let cx = x.clampedInt64, let cy = y.clampedInt64 { #expect(cx <= cy) }
        }
    }
}
