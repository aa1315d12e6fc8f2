// swift-tools-version:6.2
import PackageDescription

/// Settings every Herald target shares: Swift 6 language mode comes from the tools version; warnings in our own code
/// are errors (dependencies keep their warnings).
let heraldSettings: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// `HERALD_FUZZ=1 swift build --product HeraldFuzz` (Fuzz/run.sh): Herald's own code is built with libFuzzer's
/// coverage and `FUZZING` is defined; dependencies are built as usual. Never set for the ordinary build.
let fuzzing = Context.environment["HERALD_FUZZ"] != nil
let fuzzedSettings: [SwiftSetting] =
    heraldSettings + (fuzzing ? [.unsafeFlags(["-sanitize=fuzzer"]), .define("FUZZING")] : [])

let package = Package(
    name: "Herald",
    // iOS 17 for HeraldKit in an app (URLSession async, CryptoKit HPKE); the servers need macOS 15 where they run on a Mac.
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        // APNSCore re-exports HeraldJSON (JSONValue, JSONObject, JSONNumber): its API is part of the product.
        .library(name: "APNSCore", targets: ["APNSCore", "HeraldJSON", "HeraldEnvelope", "HeraldTime"]),
        .library(name: "APNSClient", targets: ["APNSClient"]),
        .library(
            name: "UserNotifications",
            targets: ["UserNotifications", "UserNotificationsUI", "CoreLocation", "CategoryConfig"]),
        .library(name: "ActivityKit", targets: ["ActivityKit"]),
        .library(name: "WidgetKit", targets: ["WidgetKit"]),
        // For an iOS app, its service extension and its content extension (docs/ios-app.md): registration,
        // receipts, dynamic categories, end-to-end fields and activity tokens. On Apple platforms it builds against
        // Apple's UserNotifications and ActivityKit; here against Herald's.
        .library(name: "HeraldKit", targets: ["HeraldKit"]),
        // For users' own tests: a local APNs and simulated devices in the test's process (docs/testing.md).
        .library(name: "HeraldTesting", targets: ["HeraldTesting", "DeviceSimulator"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // Only the trait Herald uses: with two (the default adds ConfigurationSupport), SwiftPM passed their -D flags
        // in a different order after each new plan, and Hummingbird recompiled (about 20 s) on the next swift run.
        .package(
            url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Traces over OTLP/HTTP only: the gRPC exporter (the default's other trait) would build gRPC for nothing.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        .target(name: "HeraldJSON", swiftSettings: fuzzedSettings),
        .target(name: "HeraldTime", swiftSettings: heraldSettings),
        .target(
            name: "HeraldEnvelope", dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: heraldSettings),
        .target(
            name: "HeraldKit",
            dependencies: [
                "HeraldEnvelope", "CategoryConfig",
                .target(name: "UserNotifications", condition: .when(platforms: [.linux])),
                .target(name: "ActivityKit", condition: .when(platforms: [.linux])),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: heraldSettings
        ),
        .target(
            name: "HeraldHTTP2",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            swiftSettings: heraldSettings
        ),
        .target(
            name: "HeraldSupport",
            dependencies: [
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: heraldSettings
        ),
        .target(
            name: "APNSCore",
            dependencies: [
                "HeraldJSON", "HeraldEnvelope",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: fuzzedSettings
        ),
        .target(
            name: "Courier",
            dependencies: [
                "APNSCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: fuzzedSettings
        ),
        .target(
            name: "APNSGateway",
            dependencies: [
                "HeraldSupport", "HeraldTime",
                "APNSCore", "Courier", "HeraldHTTP2",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: fuzzedSettings
        ),
        .target(
            name: "APNSClient",
            dependencies: [
                "APNSCore", "HeraldHTTP2", "HeraldTime",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: heraldSettings
        ),
        .target(name: "CoreLocation", swiftSettings: heraldSettings),
        .target(name: "ActivityKit", dependencies: ["HeraldJSON", "HeraldTime"], swiftSettings: heraldSettings),
        .target(name: "WidgetKit", dependencies: ["HeraldJSON", "HeraldTime"], swiftSettings: heraldSettings),
        .target(
            name: "DeviceSimulator",
            dependencies: [
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                "HeraldSupport", "HeraldKit",
                "APNSCore", "CategoryConfig", "Courier", "UserNotifications", "CoreLocation", "ActivityKit",
                "WidgetKit", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: heraldSettings
        ),
        .target(
            name: "HeraldTesting",
            dependencies: [
                "APNSCore", "APNSClient", "APNSGateway", "CoreLocation", "DeviceSimulator", "HeraldSupport",
                "UserNotifications",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: heraldSettings
        ),
        .target(
            name: "ProviderStorage",
            dependencies: [
                "HeraldSupport", "APNSCore", "HeraldJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: fuzzedSettings
        ),
        .target(
            name: "PushProvider",
            dependencies: [
                "HeraldSupport", "HeraldTime",
                "APNSCore", "APNSClient", "CategoryConfig", "ProviderStorage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            swiftSettings: fuzzedSettings
        ),
        .target(
            name: "HeraldConsole",
            dependencies: [
                "APNSCore", "HeraldSupport", "HeraldTime", "PushProvider", "ProviderStorage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Resources"],
            swiftSettings: heraldSettings,
            plugins: ["EmbedFiles"]
        ),
        .executableTarget(name: "EmbedFilesTool", swiftSettings: heraldSettings),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["EmbedFilesTool"]),
        .target(name: "CategoryConfig", swiftSettings: heraldSettings),
        .target(
            name: "UserNotifications", dependencies: ["CoreLocation", "CategoryConfig", "HeraldJSON", "HeraldTime"],
            swiftSettings: heraldSettings),
        .target(name: "UserNotificationsUI", dependencies: ["UserNotifications"], swiftSettings: heraldSettings),
        .target(
            name: "HeraldCLI",
            dependencies: [
                "HeraldSupport",
                "APNSCore",
                "APNSClient",
                "APNSGateway",
                "DeviceSimulator",
                "HeraldConsole",
                "PushProvider",
                "ProviderStorage",
                "CategoryConfig",
                "UserNotifications",
                "CoreLocation",
                "Courier",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: heraldSettings
        ),
        .executableTarget(
            name: "herald",
            dependencies: ["HeraldCLI", "CHeraldMalloc"],
            swiftSettings: heraldSettings
        ),
        .target(name: "CHeraldMalloc"),
        // Benchmarks/heraldkit-receipts.py: what a receipt adds to a service extension (release build).
        .executableTarget(
            name: "HeraldKitBench", dependencies: ["HeraldKit", "UserNotifications"],
            path: "Benchmarks/HeraldKitBench", swiftSettings: heraldSettings),
        // Benchmarks/gateway-h2load.sh: SwiftNIO's HTTP/2 and TLS alone, the floor under the gateway's speed.
        .executableTarget(
            name: "HTTP2Floor",
            dependencies: [
                "HeraldHTTP2",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/HTTP2Floor", swiftSettings: heraldSettings),
        .executableTarget(
            name: "HeraldFuzz",
            dependencies: [
                "APNSCore", "APNSGateway", "Courier", "HeraldTime", "PushProvider", "ProviderStorage",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Fuzz/HeraldFuzz",
            swiftSettings: fuzzedSettings,
            linkerSettings: fuzzing ? [.unsafeFlags(["-sanitize=fuzzer"])] : []
        ),
        .executableTarget(
            // A second process running HeraldKit on a shared folder, for the tests about an app and its extension.
            name: "HeraldKitProbe", dependencies: ["HeraldKit"], path: "Tests/HeraldKitProbe",
            swiftSettings: heraldSettings),
        .target(
            // The trait that paces tests that start servers (`.startsServers`): every test target that starts one
            // depends on it.
            name: "TestPacing", path: "Tests/TestPacing", swiftSettings: heraldSettings),
        .target(
            name: "GatewayTestSupport",
            dependencies: [
                "APNSGateway", "APNSCore", "APNSClient", "HeraldTesting", "HeraldSupport", "TestPacing",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/GatewayTestSupport",
            swiftSettings: heraldSettings
        ),
        .testTarget(
            name: "APNSCoreTests",
            dependencies: [
                "APNSCore", "HeraldTime", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: heraldSettings
        ),
        .testTarget(
            name: "APNSGatewayTests",
            dependencies: [
                "TestPacing", "HeraldTime",
                "APNSGateway", "Courier", "APNSCore", "GatewayTestSupport", "HeraldHTTP2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: heraldSettings
        ),
        .testTarget(
            name: "APNSClientTests",
            dependencies: [
                "TestPacing", "HeraldTime", "APNSClient", "APNSGateway", "Courier", "APNSCore", "GatewayTestSupport",
                "HeraldHTTP2",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: heraldSettings
        ),
        .testTarget(
            name: "DeviceSimulatorTests",
            dependencies: [
                "TestPacing", "HeraldSupport",
                "DeviceSimulator", "UserNotifications", "APNSCore", "APNSClient", "APNSGateway", "Courier",
                "GatewayTestSupport", "HeraldTesting", "HeraldKit",
                "ActivityKit", "WidgetKit", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: heraldSettings
        ),
        .testTarget(
            name: "PushProviderTests",
            dependencies: [
                "TestPacing", "HeraldKitProbe", "HeraldSupport", "HeraldTime",
                "PushProvider", "ProviderStorage", "APNSCore", "APNSClient", "APNSGateway", "Courier",
                "DeviceSimulator", "HeraldKit", "UserNotifications", "ActivityKit",
                "GatewayTestSupport", "HeraldTesting", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: heraldSettings
        ),
        .testTarget(
            // Apple's own ActivityKit article code, compiled in Swift 5 mode as an app's is: it must build unchanged.
            name: "AppleSampleCodeTests",
            dependencies: [
                "TestPacing", "ActivityKit", "WidgetKit", "APNSClient", "APNSCore", "APNSGateway", "Courier",
                "DeviceSimulator", "GatewayTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: heraldSettings + [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "HeraldTestingTests",
            dependencies: [
                "TestPacing", "HeraldTesting", "APNSClient", "APNSCore", "DeviceSimulator", "UserNotifications",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: heraldSettings
        ),
        .testTarget(
            name: "HeraldConsoleTests",
            dependencies: ["TestPacing", "HeraldConsole", "HeraldTime", "PushProvider", "ProviderStorage"],
            swiftSettings: heraldSettings),
        .testTarget(
            name: "ProviderStorageTests",
            dependencies: [
                "TestPacing", "ProviderStorage", "APNSCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: heraldSettings),
        .testTarget(
            name: "UserNotificationsUITests", dependencies: ["UserNotificationsUI"], swiftSettings: heraldSettings),
        .testTarget(name: "HeraldSupportTests", dependencies: ["HeraldSupport"], swiftSettings: heraldSettings),
        .testTarget(name: "TestPacingTests", dependencies: ["TestPacing"], swiftSettings: heraldSettings),
        .testTarget(name: "HeraldJSONTests", dependencies: ["HeraldJSON"], swiftSettings: heraldSettings),
        .testTarget(
            name: "HeraldHTTP2Tests",
            dependencies: [
                "HeraldHTTP2",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            swiftSettings: heraldSettings),
        .testTarget(name: "CourierTests", dependencies: ["Courier", "APNSCore"], swiftSettings: heraldSettings),
        .testTarget(name: "CategoryConfigTests", dependencies: ["CategoryConfig"], swiftSettings: heraldSettings),
        .testTarget(name: "ActivityKitTests", dependencies: ["ActivityKit"], swiftSettings: heraldSettings),
        .testTarget(name: "CoreLocationTests", dependencies: ["CoreLocation"], swiftSettings: heraldSettings),
        .testTarget(name: "WidgetKitTests", dependencies: ["WidgetKit", "HeraldTime"], swiftSettings: heraldSettings),
        .testTarget(
            name: "UserNotificationsTests",
            dependencies: [
                "TestPacing", "UserNotifications", "UserNotificationsUI", "CoreLocation", "CategoryConfig", "HeraldKit",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: heraldSettings
        ),
        .testTarget(
            name: "HeraldCLITests",
            dependencies: [
                "TestPacing", "HeraldTime",
                "HeraldCLI", "APNSGateway", "Courier", "APNSCore", "GatewayTestSupport", "DeviceSimulator",
                "HeraldConsole", "PushProvider", "ProviderStorage", "APNSClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: heraldSettings
        ),
    ]
)
