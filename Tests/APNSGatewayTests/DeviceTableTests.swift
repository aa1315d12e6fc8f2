import APNSCore
import Crypto
import Foundation
import Testing

@testable import APNSGateway

/// The gateway's compact table of devices, checked against a dictionary holding the same devices: every lookup,
/// change, removal and walk gives what the dictionary gives.
@Suite("The gateway's device table: records, a probed index, and the rare cases in dictionaries of their own")
struct DeviceTableTests {
    private static let apps = [
        ("com.example.a", APNSEnvironment.development), ("com.example.a", .production), ("com.example.b", .production),
    ]

    /// A generator with a seed, so a failure can be run again.
    private struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static func token(_ bytes: Int, _ random: inout Seeded) -> APNSDeviceToken {
        // Safety: 1 to 100 bytes is a token.
        try! APNSDeviceToken(bytes: Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &random) }))
    }

    private static func device(_ token: APNSDeviceToken, _ random: inout Seeded) -> DeviceRegistry.Device {
        let (bundleID, environment) = apps[Int.random(in: 0..<apps.count, using: &random)]
        let invalid = Int.random(in: 0..<5, using: &random) == 0
        let secret = Int.random(in: 0..<4, using: &random) != 0
        return DeviceRegistry.Device(
            token: token, bundleID: bundleID, environment: environment,
            invalidation: invalid
                ? DeviceRegistry.Invalidation(
                    reason: Bool.random(using: &random) ? .unregistered : .expiredToken,
                    since: Date(timeIntervalSince1970: 1_700_000_000.125 + Double(random.next() % 1_000_000)))
                : nil,
            secretDigest: secret ? DeviceSecretDigest(SHA256.hash(data: Data(token.hex.utf8))) : nil)
    }

    private static func expectSame(_ table: DeviceTable, _ model: [APNSDeviceToken: DeviceRegistry.Device]) {
        #expect(table.count == model.count)
        var walked: [APNSDeviceToken: DeviceRegistry.Device] = [:]
        for device in table {
            #expect(walked[device.token] == nil, "walked twice: \(device.token)")
            walked[device.token] = device
        }
        #expect(walked == model)
        for (token, device) in model { #expect(table[token] == device) }
    }

    @Test(
        "random registrations, changes and removals give what a dictionary gives, at every size", arguments: [1, 2, 3])
    func againstADictionary(seed: UInt64) {
        var random = Seeded(state: seed)
        var table = DeviceTable()
        var model: [APNSDeviceToken: DeviceRegistry.Device] = [:]
        var tokens: [APNSDeviceToken] = []
        for step in 1...30_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:  // a new device; now and then a short or a long token
                let length = [32, 32, 32, 32, 8, 1, 33, 100][Int.random(in: 0..<8, using: &random)]
                let token = Self.token(length, &random)
                let device = Self.device(token, &random)
                table[token] = device
                if model[token] == nil { tokens.append(token) }
                model[token] = device
            case 5..<7:  // a known device changes (invalidated, given a secret, or back)
                guard let token = tokens.randomElement(using: &random) else { continue }
                let device = Self.device(token, &random)
                table[token] = device
                model[token] = device
            case 7..<9:  // a known device is forgotten
                guard !tokens.isEmpty else { continue }
                let index = Int.random(in: 0..<tokens.count, using: &random)
                let token = tokens.remove(at: index)
                table[token] = nil
                model[token] = nil
                #expect(table[token] == nil)
            default:  // an unknown token: nothing, and forgetting it changes nothing
                let token = Self.token(32, &random)
                #expect(table[token] == nil)
                table[token] = nil
            }
            if step % 5_000 == 0 || step < 200 { Self.expectSame(table, model) }
        }
        // Down to nothing, then up again: the index still finds everything.
        for token in tokens.shuffled(using: &random) {
            table[token] = nil
            model[token] = nil
        }
        Self.expectSame(table, model)
        for _ in 0..<1_000 {
            let token = Self.token(32, &random)
            let device = Self.device(token, &random)
            table[token] = device
            model[token] = device
        }
        Self.expectSame(table, model)
    }

    @Test("tokens that differ only in length are different tokens")
    func lengths() throws {
        var table = DeviceTable()
        let short = try APNSDeviceToken(hex: "ab")
        let padded = try APNSDeviceToken(hex: "ab00")
        let full = try APNSDeviceToken(hex: "ab" + String(repeating: "00", count: 31))
        for (index, token) in [short, padded, full].enumerated() {
            table[token] = DeviceRegistry.Device(
                token: token, bundleID: "com.example.\(index)", environment: .development)
        }
        #expect(table.count == 3)
        #expect(table[short]?.bundleID == "com.example.0")
        #expect(table[padded]?.bundleID == "com.example.1")
        #expect(table[full]?.bundleID == "com.example.2")
        table[padded] = nil
        #expect(table[short]?.bundleID == "com.example.0")
        #expect(table[padded] == nil)
        #expect(table[full]?.bundleID == "com.example.2")
    }

    @Test("a copy keeps what it had while the table changes, and the other way round")
    func copies() throws {
        var random = Seeded(state: 7)
        var table = DeviceTable()
        var model: [APNSDeviceToken: DeviceRegistry.Device] = [:]
        for _ in 0..<500 {
            let token = Self.token(32, &random)
            model[token] = Self.device(token, &random)
            table[token] = model[token]
        }
        let snapshot = table
        let snapshotModel = model
        for token in model.keys.prefix(200) {
            table[token] = nil
            model[token] = nil
        }
        let invalid = try #require(model.keys.first)
        let changed = DeviceRegistry.Device(
            token: invalid, bundleID: "com.example.a", environment: .development,
            invalidation: DeviceRegistry.Invalidation(reason: .unregistered, since: Date(timeIntervalSince1970: 5)))
        table[invalid] = changed
        model[invalid] = changed
        Self.expectSame(table, model)
        Self.expectSame(snapshot, snapshotModel)
    }
}
