// swift-tools-version:6.2
// The Pathwatch plug-in SDK: the C ABI header, the JSON pieces a probe needs, the Swift probe
// kit, and a testing library. It depends on nothing: a plug-in package that uses it resolves
// no other package (the agent's own dependencies stay the agent's). Tools version 6.2, below the
// agent's 6.3: nothing here needs 6.3.
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "PathwatchSDK",
    products: [
        // The plug-in ABI: one public C header (include/pathwatch_probe.h).
        .library(name: "CPathwatchProbe", targets: ["CPathwatchProbe"]),
        // JSON values, a strict parser and serializer, a strict decoder with JSON paths, and
        // the config units (durations, sizes).
        .library(name: "PathwatchJSON", targets: ["PathwatchJSON"]),
        // The Swift SDK: a Probe protocol, config decoding, an emitter, the exported entry point.
        .library(name: "PathwatchProbeKit", targets: ["PathwatchProbeKit"]),
        // The rules a plug-in's descriptor and observations are held to: the agent's and
        // ProbeTester's one validator, and what declared metrics mean in every exposition.
        .library(name: "PathwatchProbeRules", targets: ["PathwatchProbeRules"]),
        // Runs a probe's create/sample/event calls in a unit test and returns what it emitted.
        .library(name: "PathwatchProbeTesting", targets: ["PathwatchProbeTesting"]),
    ],
    targets: [
        .target(name: "CPathwatchProbe"),
        .target(name: "PathwatchJSON", swiftSettings: strict),
        .target(name: "PathwatchProbeKit", dependencies: ["CPathwatchProbe", "PathwatchJSON"], swiftSettings: strict),
        .target(
            name: "PathwatchProbeRules", dependencies: ["CPathwatchProbe", "PathwatchJSON", "PathwatchProbeKit"],
            swiftSettings: strict),
        .target(
            name: "PathwatchProbeTesting", dependencies: ["PathwatchJSON", "PathwatchProbeKit", "PathwatchProbeRules"],
            swiftSettings: strict),

        // The SDK's own tests, run by the agent's `make test` (`swift test --package-path SDK`):
        // a plug-in author relies on exactly these, so they are tested without the agent.
        .testTarget(name: "PathwatchJSONTests", dependencies: ["PathwatchJSON"], swiftSettings: strict),
        .testTarget(
            name: "PathwatchProbeKitTests", dependencies: ["CPathwatchProbe", "PathwatchJSON", "PathwatchProbeKit"],
            swiftSettings: strict),
        .testTarget(
            name: "PathwatchProbeRulesTests", dependencies: ["PathwatchProbeKit", "PathwatchProbeRules"],
            swiftSettings: strict),
        .testTarget(
            name: "PathwatchProbeTestingTests",
            dependencies: ["PathwatchProbeKit", "PathwatchProbeTesting", "PathwatchProbeRules"],
            swiftSettings: strict),
    ]
)
