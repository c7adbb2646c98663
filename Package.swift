// swift-tools-version:6.3
// Pathwatch: a host monitoring agent that loads probe plug-ins with dlopen and forwards their
// aggregated status to sinks. See README.md for the map of the code.
// Tools version 6.3: the agent installs its own default executor through Swift 6.3's executor
// factory (Sources/PathwatchAgent/Scheduling/AgentExecutors.swift). The SDK (SDK/Package.swift)
// needs nothing of 6.3 and stays at 6.2: it asks no more of a plug-in author's toolchain.
import PackageDescription

// Our own targets build with warnings as errors: the project keeps no warnings.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

// A bundled plug-in exports its entry point and nothing else. Each links its own copy of the
// SDK's ProbeKit and JSON code, whose public symbols would otherwise all be exported: a plug-in
// then carried some 1,200 dynamic symbols, and link-time optimisation had to keep every one of
// them. Kept local, the linker drops what the plug-in never reaches.
let pluginExports: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Plugins/exports.map"])
]

// From the SDK package (SDK/): the ABI header, the JSON pieces, the Swift probe kit, testing.
let probeABI = Target.Dependency.product(name: "CPathwatchProbe", package: "SDK")
let json = Target.Dependency.product(name: "PathwatchJSON", package: "SDK")
let probeKit = Target.Dependency.product(name: "PathwatchProbeKit", package: "SDK")
let probeTesting = Target.Dependency.product(name: "PathwatchProbeTesting", package: "SDK")
let probeRules = Target.Dependency.product(name: "PathwatchProbeRules", package: "SDK")

let package = Package(
    name: "pathwatch",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pathwatch", targets: ["pathwatch"]),
        .executable(name: "pathwatch-cli", targets: ["PathwatchCLI"]),
        // Probe plug-ins: each a shared library the agent opens with dlopen.
        .library(name: "pathwatch_disk", type: .dynamic, targets: ["DiskProbeEntry"]),
        .library(name: "pathwatch_loadavg", type: .dynamic, targets: ["LoadAvgProbe"]),
        .library(name: "pathwatch_linkstate", type: .dynamic, targets: ["LinkStateProbeEntry"]),
        .library(name: "pathwatch_reachability", type: .dynamic, targets: ["ReachabilityProbeEntry"]),
        .library(name: "pathwatch_bandwidth", type: .dynamic, targets: ["BandwidthProbeEntry"]),
        .library(name: "pathwatch_connectivity", type: .dynamic, targets: ["ConnectivityProbeEntry"]),
        .library(name: "pathwatch_ping", type: .dynamic, targets: ["PingProbeEntry"]),
        .library(name: "pathwatch_dns", type: .dynamic, targets: ["DNSProbeEntry"]),
        .library(name: "pathwatch_exec", type: .dynamic, targets: ["ExecProbeEntry"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The http sink's server: SwiftNIO's event loop and HTTP/1.1 codec (README "The live agent").
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The http sink's TLS (docs/design.md "Why swift-nio-ssl and libcrypt").
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The plug-in SDK (header, JSON, ProbeKit, testing): its own package, which out-of-tree
        // plug-ins depend on without the agent's dependencies.
        .package(path: "SDK"),
    ],
    targets: [
        // System libraries, found through pkg-config.
        .systemLibrary(
            name: "CJSONC", path: "Sources/CJSONC", pkgConfig: "json-c",
            providers: [.apt(["libjson-c-dev"])]),
        // c-ares, linked by the dns plug-in alone (only a process that loads it maps the library).
        .systemLibrary(
            name: "CAres", path: "Plugins/DNS/CAres", pkgConfig: "libcares",
            providers: [.apt(["libc-ares-dev"])]),
        // libcurl's headers only: nothing links libcurl, CCurlShims loads it on first use.
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),

        // libcurl loaded on first use (dlopen), and non-variadic wrappers over its variadic
        // calls, which Swift cannot import.
        .target(
            name: "CCurlShims", dependencies: ["CCurl"], path: "Sources/CCurlShims",
            linkerSettings: [.linkedLibrary("dl")]),
        // OpenSSL's libcrypto loaded on first use (dlopen) for the webhook's SHA-256 and HMAC.
        .target(name: "CLibcrypto", path: "Sources/CLibcrypto", linkerSettings: [.linkedLibrary("dl")]),
        // glibc's libcrypt (libxcrypt) loaded on first use (dlopen): crypt_rn verifies the http
        // sink's basic-auth bcrypt hashes; an agent without users never maps it.
        .target(name: "CCrypt", path: "Sources/CCrypt", linkerSettings: [.linkedLibrary("dl")]),
        // pipe2(2), which Swift's Glibc module does not declare.
        .target(name: "CPipe", path: "Sources/CPipe"),
        // glibc's malloc_trim and mallopt (<malloc.h>), which Swift's Glibc module does not declare.
        .target(name: "CMalloc", path: "Sources/CMalloc"),
        // prctl(2) on the agent itself (not dumpable; thread names), which Swift cannot call.
        .target(name: "CProcessControl", path: "Sources/CProcessControl"),
        .target(name: "CFaultReport", path: "Sources/CFaultReport"),
        // pidfd_open(2), posix_spawn's closefrom action and the call guard (a seccomp filter in
        // each plug-in child whose calls naming other processes the agent rules on).
        .target(name: "CChildProcess", path: "Sources/CChildProcess"),
        // Linux netlink headers and their function-like macros, made callable from Swift.
        .target(name: "CNetlink", path: "Sources/CNetlink"),
        // rtnetlink: socket, dumps, a strict attribute walker and typed readers.
        .target(name: "PathwatchNetlink", dependencies: ["CNetlink"], swiftSettings: strict),
        // What the other modules share below the agent: its threads (SerialThread, WorkerPool and
        // its lanes, the timer thread) and POSIX helpers (errnoText, makePipe, paths, folders,
        // writes, monotonic time). It depends on nothing of the agent's, nor on the SDK.
        .target(
            name: "PathwatchBase", dependencies: ["CPipe", "CMalloc", "CProcessControl"], swiftSettings: strict,
            plugins: ["ReleaseVersionPlugin"]),
        // The release version, from docs/changelog.md's newest heading (Sources/ReleaseVersionTool).
        .executableTarget(name: "release-version", path: "Sources/ReleaseVersionTool"),
        .plugin(
            name: "ReleaseVersionPlugin", capability: .buildTool(), dependencies: ["release-version"],
            path: "Sources/ReleaseVersionPlugin"),

        // What a sink is handed and what it implements, below the agent's core: the status
        // model (check book, snapshot, events, renderers), the sink protocol, its one runner and
        // pacing, the sink kinds' settings and registry, and the clock and log every part reads.
        // A sink depends on this module, not on the agent.
        .target(
            name: "PathwatchSinkKit",
            dependencies: [
                "PathwatchBase", probeABI, json, probeKit, probeRules,
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // Plug-in hosting: loading and vetting a library, the seam every probe is called through
        // (ProbeHost), the inline host, and process isolation (the plug-in child, its frames,
        // supervision and restarts, the call guard, the sweep of what a plug-in started).
        .target(
            name: "PathwatchPluginHost",
            dependencies: [
                "PathwatchSinkKit", "PathwatchBase", probeABI, json, probeKit, probeRules, "CFaultReport",
                "CChildProcess",
            ],
            swiftSettings: strict),
        // The agent's core: configuration, the plug-ins a configuration sets up, scheduling and
        // the ordered pipeline. It names no sink kind.
        .target(
            name: "PathwatchAgent",
            dependencies: [
                "PathwatchPluginHost", "PathwatchSinkKit", "PathwatchBase", probeABI, json, probeKit, probeRules,
                "CFaultReport", "CChildProcess",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // Sink kinds, one module each: its settings, host checks, descriptor estimate and the sink.
        .target(
            name: "PathwatchStdoutSink", dependencies: ["PathwatchSinkKit", "PathwatchBase", probeKit, json],
            swiftSettings: strict),
        .target(
            name: "PathwatchFileSink", dependencies: ["PathwatchSinkKit", "PathwatchBase", probeKit, json],
            swiftSettings: strict),
        // The http sink's settings, its kind (read and checked, not run) and `pathwatch status`'s
        // client: what `pathwatch-cli` needs of the sink, without SwiftNIO.
        .target(
            name: "PathwatchHTTPSinkSettings",
            dependencies: ["PathwatchSinkKit", json, "CCurlShims", "CCrypt"],
            swiftSettings: strict),
        // The live agent (page, /metrics, /status, /events) on SwiftNIO's event loop and HTTP/1.1
        // codec, and the http kind with its server (`SinkKind.httpServer`).
        .target(
            name: "PathwatchHTTPSink",
            dependencies: [
                "PathwatchSinkKit", "PathwatchHTTPSinkSettings", "PathwatchBase", "PathwatchDigest", probeKit,
                probeRules, json,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict),
        // SHA-256 and HMAC through libcrypto, loaded on first use (the webhook's signatures and
        // earlier queue folder names, the status page's policy hashes).
        .target(name: "PathwatchDigest", dependencies: ["CLibcrypto"], swiftSettings: strict),
        // The durable, ordered on-disk queue of opaque records, for any sink that must keep what
        // it sends across outages; it depends on nothing of the agent's but the base module.
        .target(name: "PathwatchQueue", dependencies: ["PathwatchBase"], exclude: ["README.md"], swiftSettings: strict),
        // HTTP out for the sinks that POST (webhook, remote write): the queued delivery they share
        // (`PushDelivery` under the one SinkRunner: durable queue → paced, retried delivery →
        // health), libcurl's poster, the answer's classification, backoff with Retry-After, and
        // holding while the host is offline. A pushing sink adds its settings and formats (`PushFormat`).
        .target(
            name: "PathwatchHTTPOut",
            dependencies: [
                "PathwatchSinkKit", "PathwatchBase", "PathwatchQueue", "CCurlShims", json,
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The webhook sink: settings, formats and signer, on the shared queued delivery (README "Sinks").
        .target(
            name: "PathwatchWebhook",
            dependencies: [
                "PathwatchSinkKit", "PathwatchQueue", "PathwatchDigest", "PathwatchHTTPOut", probeKit, json,
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict),
        // snappy loaded on first use (dlopen), for the remote_write sink's request bodies.
        .target(name: "CSnappy", path: "Sources/CSnappy", linkerSettings: [.linkedLibrary("dl")]),
        // The remote_write sink: the /metrics series of every report, encoded for Prometheus remote
        // write 1.0, on the shared queued delivery (README "Sinks").
        .target(
            name: "PathwatchRemoteWrite",
            dependencies: [
                "PathwatchSinkKit", "PathwatchQueue", "PathwatchHTTPOut", "PathwatchBase", "CSnappy", json,
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict),
        // zlib loaded on first use (dlopen), for the otlp sink's gzip request bodies.
        .target(name: "CGzip", path: "Sources/CGzip", linkerSettings: [.linkedLibrary("dl")]),
        // The otlp sink: each report's checks as OpenTelemetry metrics (OTLP/HTTP, protobuf or
        // JSON, encoded by hand as remote write's is), on the shared queued delivery with remote
        // write's queue records (Sources/PathwatchOTLP/README.md).
        .target(
            name: "PathwatchOTLP",
            dependencies: [
                "PathwatchRemoteWrite", "PathwatchHTTPOut", "PathwatchQueue", "PathwatchSinkKit", "PathwatchBase",
                "CGzip", probeKit, probeRules, json, .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"],
            swiftSettings: strict),
        // The one place sink kinds are registered (`SinkRegistry.standard`).
        .target(
            name: "PathwatchSinks",
            dependencies: [
                "PathwatchSinkKit", "PathwatchStdoutSink", "PathwatchFileSink", "PathwatchHTTPSinkSettings",
                "PathwatchWebhook",
                "PathwatchRemoteWrite", "PathwatchOTLP",
            ],
            swiftSettings: strict),
        // What the commands do, apart from how their arguments are parsed: `run`, `once` and a
        // plug-in child for both executables below, and the direct reading of their plain forms.
        .target(
            name: "PathwatchCommands",
            dependencies: [
                "PathwatchAgent", "PathwatchSinkKit", "PathwatchPluginHost", "PathwatchBase",
                probeKit, json,
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // The agent's executable: reads `run`, `once` and `plugin-child` directly and hands every
        // other command line to pathwatch-cli, so that no agent process maps the argument parser
        // and its Foundation library (README "Command line").
        .executableTarget(
            name: "pathwatch",
            dependencies: [
                "PathwatchBase", "PathwatchCommands", "PathwatchSinks", "PathwatchHTTPSink", "PathwatchSinkKit",
            ], swiftSettings: strict),
        // The command-line companion: every command of `pathwatch`, with swift-argument-parser.
        .executableTarget(
            name: "PathwatchCLI",
            dependencies: [
                "PathwatchAgent", "PathwatchSinkKit", "PathwatchPluginHost", "PathwatchBase", "PathwatchCommands",
                "PathwatchHTTPSinkSettings", "PathwatchSinks",
                probeKit, json,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),

        // Probe plug-ins. Each is a module with the probe (which its tests link) and a one-file
        // `…Entry` target exporting `pathwatch_probe_entry`, linked only into the plug-in library.
        .target(
            name: "DiskProbeEntry", dependencies: ["DiskProbe"], path: "Plugins/Disk/Entry", swiftSettings: strict,
            linkerSettings: pluginExports),
        .target(
            name: "LinkStateProbeEntry", dependencies: ["LinkStateProbe"], path: "Plugins/LinkState/Entry",
            swiftSettings: strict, linkerSettings: pluginExports),
        .target(
            name: "ReachabilityProbeEntry", dependencies: ["ReachabilityProbe"], path: "Plugins/Reachability/Entry",
            swiftSettings: strict, linkerSettings: pluginExports),
        .target(
            name: "BandwidthProbeEntry", dependencies: ["BandwidthProbe"], path: "Plugins/Bandwidth/Entry",
            swiftSettings: strict, linkerSettings: pluginExports),
        .target(
            name: "DiskProbe", dependencies: [probeKit, json], path: "Plugins/Disk/Sources",
            swiftSettings: strict),
        .target(
            name: "LinkStateProbe", dependencies: [probeKit, "PathwatchNetlink", "CNetlink", "CLinkStateEvents"],
            path: "Plugins/LinkState/Sources", swiftSettings: strict),
        .target(name: "CLinkStateEvents", path: "Plugins/LinkState/CEvents"),
        .target(
            name: "ReachabilityProbe", dependencies: [probeKit, json, "CCurlShims", "CRE2Shim"],
            path: "Plugins/Reachability/Sources", swiftSettings: strict),
        // RE2 (Debian's libre2), linked by the reachability plug-in alone: the linear-time matcher
        // of its `/…/` conditions (Plugins/Reachability/README.md). RE2 is C++ with no C API in
        // Debian, so a few C calls of our own in C++ wrap it, and Swift imports plain C.
        .target(
            name: "CRE2Shim", path: "Plugins/Reachability/CRE2Shim", linkerSettings: [.linkedLibrary("re2")]),
        .target(
            name: "BandwidthProbe", dependencies: [probeKit, json, "PathwatchNetlink"],
            path: "Plugins/Bandwidth/Sources", swiftSettings: strict),
        .target(
            name: "ConnectivityProbeEntry", dependencies: ["ConnectivityProbe"], path: "Plugins/Connectivity/Entry",
            swiftSettings: strict, linkerSettings: pluginExports),
        // Asks its URL through the reachability probe's libcurl machinery (HTTPCheck).
        .target(
            name: "ConnectivityProbe", dependencies: [probeKit, json, "ReachabilityProbe"],
            path: "Plugins/Connectivity/Sources", swiftSettings: strict),
        .target(
            name: "PingProbeEntry", dependencies: ["PingProbe"], path: "Plugins/Ping/Entry", swiftSettings: strict,
            linkerSettings: pluginExports),
        .target(
            name: "PingProbe", dependencies: [probeKit, json], path: "Plugins/Ping/Sources", swiftSettings: strict),
        .target(
            name: "DNSProbeEntry", dependencies: ["DNSProbe"], path: "Plugins/DNS/Entry", swiftSettings: strict,
            linkerSettings: pluginExports),
        // Every query of a sample at once on one poll loop, through c-ares.
        .target(
            name: "DNSProbe", dependencies: [probeKit, json, "CAres"], path: "Plugins/DNS/Sources",
            swiftSettings: strict),
        .target(
            name: "ExecProbeEntry", dependencies: ["ExecProbe"], path: "Plugins/Exec/Entry", swiftSettings: strict,
            linkerSettings: pluginExports),
        // Commands as checks; the agent's own reading of a metric name (ProbeRules) keeps the
        // names it makes from output labels from clashing at the boundary.
        .target(
            name: "ExecProbe", dependencies: [probeKit, json, probeRules, "CExecSpawn"], path: "Plugins/Exec/Sources",
            swiftSettings: strict),
        // The spawn of one command (clone with a pidfd, a process group of its own, closefrom).
        .target(name: "CExecSpawn", path: "Plugins/Exec/CSpawn"),
        .target(
            name: "LoadAvgProbe", dependencies: [probeABI, "CJSONC"],
            path: "Plugins/Examples/LoadAvg", exclude: ["README.md"], publicHeadersPath: "."),

        // Tests. PathwatchTestSupport: processes, namespaces, build products, for every test target.
        .target(name: "PathwatchTestSupport", path: "Tests/PathwatchTestSupport", swiftSettings: strict),
        // A clock tests move by hand, so timers, backoff and pacing run in virtual time.
        .target(
            name: "PathwatchClockTesting", dependencies: ["PathwatchSinkKit"], path: "Tests/PathwatchClockTesting",
            swiftSettings: strict),
        // What every bundled plug-in's tests check of its metric declarations: what it emits is
        // declared, and its README's metrics table says what the declarations say.
        .target(
            name: "PluginTestSupport", dependencies: [probeABI, probeKit, probeRules, probeTesting],
            path: "Plugins/TestSupport",
            swiftSettings: strict),
        .testTarget(
            name: "PathwatchNetlinkTests", dependencies: ["PathwatchNetlink", "CNetlink", "PathwatchTestSupport"],
            swiftSettings: strict),
        // The command line itself: the direct reading of `run`, `once` and a plug-in child against
        // ArgumentParser's reading of the same lines, and where the companion is looked for.
        .testTarget(
            name: "PathwatchCommandTests",
            dependencies: [
                "PathwatchCLI", "PathwatchCommands", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // The core's own suites, and the runs of the whole agent whose assertions are the core's.
        .testTarget(
            name: "PathwatchAgentTests",
            dependencies: [
                "PathwatchAgent", "PathwatchSinkKit", "PathwatchPluginHost", "PathwatchSinks", "PathwatchStdoutSink",
                "PathwatchFileSink",
                "PathwatchRemoteWrite",
                "PathwatchBase", "PathwatchCommands", probeABI, json, probeKit, probeRules, probeTesting,
                "PathwatchTestSupport",
                "PathwatchSinkTestSupport",
                "PathwatchClockTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // Fixtures that read the agent's own types, for the suites of several modules: a
        // configuration loaded with the standard sink kinds, the exposition read back into the
        // remote_write sink's series, remote-write requests decoded as a receiver reads them.
        // A test target (it holds no tests), so that it may import modules @testable and is
        // built for the tests alone.
        .testTarget(
            name: "PathwatchSinkTestSupport",
            dependencies: [
                "PathwatchAgent", "PathwatchSinkKit", "PathwatchSinks", "PathwatchHTTPSink", "PathwatchRemoteWrite",
                "PathwatchTestSupport",
            ],
            swiftSettings: strict),
        // A test target per sink module and per module of the delivery path, depending on what
        // its files import. A suite that runs the whole agent sits with the module whose
        // behaviour it asserts (the stdout sink's suites need nothing but the binary).
        .testTarget(name: "PathwatchStdoutSinkTests", dependencies: ["PathwatchTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "PathwatchOTLPTests",
            dependencies: [
                "PathwatchOTLP", "PathwatchSinkKit", "PathwatchBase", "PathwatchAgent", probeKit, probeRules,
                "PathwatchTestSupport", "PathwatchSinkTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PathwatchFileSinkTests",
            dependencies: [
                "PathwatchFileSink", "PathwatchAgent", "PathwatchSinkKit", json, "PathwatchTestSupport",
                "PathwatchSinkTestSupport",
                "PathwatchClockTesting", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PathwatchHTTPSinkTests",
            dependencies: [
                "PathwatchHTTPSink", "PathwatchHTTPSinkSettings", "PathwatchAgent", "PathwatchSinkKit",
                "PathwatchPluginHost", "PathwatchDigest", "PathwatchSinks",
                "PathwatchTestSupport",
                "PathwatchSinkTestSupport", probeKit, probeRules,
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PathwatchWebhookTests",
            dependencies: [
                "PathwatchWebhook", "PathwatchHTTPOut", "PathwatchAgent", "PathwatchSinkKit", "PathwatchQueue",
                "PathwatchSinks", probeKit,
                json, "CCurlShims",
                "PathwatchBase", "PathwatchTestSupport", "PathwatchSinkTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PathwatchRemoteWriteTests",
            dependencies: [
                "PathwatchRemoteWrite", "PathwatchAgent", "PathwatchSinkKit", "PathwatchQueue", "PathwatchSinks",
                probeKit, "PathwatchTestSupport",
                "PathwatchSinkTestSupport", "PathwatchClockTesting", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PathwatchHTTPOutTests",
            dependencies: [
                "PathwatchHTTPOut", "PathwatchAgent", "PathwatchSinkKit", "PathwatchQueue", "CCurlShims", json,
                "PathwatchTestSupport",
                "PathwatchClockTesting", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PathwatchQueueTests", dependencies: ["PathwatchQueue", "PathwatchTestSupport"], swiftSettings: strict
        ),
        .testTarget(
            name: "PathwatchBaseTests", dependencies: ["PathwatchBase", "PathwatchTestSupport"], swiftSettings: strict),
        // make install, make deb, systemd's notify protocol: the agent as an operator installs and runs it.
        .testTarget(name: "DistributionTests", dependencies: ["PathwatchTestSupport"], swiftSettings: strict),
        // The package booted under a real systemd (systemd-nspawn), checked as an operator checks it.
        .testTarget(name: "SystemTests", dependencies: ["PathwatchTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "DiskProbeTests",
            dependencies: [probeABI, probeKit, json, "DiskProbe", "PathwatchTestSupport", "PluginTestSupport"],
            path: "Plugins/Disk/Tests", exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "ExampleProbeTests",
            dependencies: [probeABI, probeTesting, "PathwatchTestSupport", "PluginTestSupport"],
            path: "Plugins/Examples/Tests", swiftSettings: strict),
        .testTarget(
            name: "LinkStateProbeTests",
            dependencies: [
                probeKit, probeTesting, "LinkStateProbe", "PathwatchNetlink", "CNetlink", "PathwatchTestSupport",
                "PluginTestSupport",
            ],
            path: "Plugins/LinkState/Tests", exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "ReachabilityProbeTests",
            dependencies: [
                probeABI, probeKit, json, probeTesting, "ReachabilityProbe", "CCurlShims", "PathwatchTestSupport",
                "PluginTestSupport",
            ],
            path: "Plugins/Reachability/Tests", exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "BandwidthProbeTests",
            dependencies: [
                probeABI, probeKit, probeTesting, "BandwidthProbe", "PathwatchTestSupport", "PluginTestSupport",
            ],
            path: "Plugins/Bandwidth/Tests", swiftSettings: strict),
        .testTarget(
            name: "ConnectivityProbeTests",
            dependencies: [
                probeABI, probeKit, probeTesting, "ConnectivityProbe", "PathwatchTestSupport", "PluginTestSupport",
            ],
            path: "Plugins/Connectivity/Tests", exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "PingProbeTests",
            dependencies: [probeKit, probeTesting, "PingProbe", "PathwatchTestSupport", "PluginTestSupport"],
            path: "Plugins/Ping/Tests", swiftSettings: strict),
        .testTarget(
            name: "DNSProbeTests",
            dependencies: [probeKit, probeTesting, "DNSProbe", "PathwatchTestSupport", "PluginTestSupport"],
            path: "Plugins/DNS/Tests", exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "ExecProbeTests",
            dependencies: [
                probeKit, probeTesting, "ExecProbe", "CExecSpawn", "PathwatchTestSupport", "PluginTestSupport",
            ],
            path: "Plugins/Exec/Tests", exclude: ["Fixtures"], swiftSettings: strict),
    ]
)
