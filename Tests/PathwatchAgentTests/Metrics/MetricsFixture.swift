import CPathwatchProbe
import Foundation
import Glibc
import PathwatchTestSupport

/// The metrics fixture plug-in (Tests/Fixtures/plugins/metrics_probe.c), built once per
/// variant into a folder of its own, and opened in this process for `ProbeTester`.
struct MetricsFixture {
    let dir: URL
    let library: URL

    init(defines: [String] = []) throws {
        dir = try TestEnvironment.makeTemporaryDirectory()
        chmod(dir.path, 0o755)
        library = try FixturePlugins.build("metrics_probe.c", as: "metrics", into: dir, defines: defines)
    }

    func remove() { TestEnvironment.removeTemporaryDirectory(dir) }

    /// The descriptor, from the library opened in this process (as ProbeTester takes a C
    /// plug-in's).
    func descriptor() throws -> UnsafePointer<pw_probe_descriptor> {
        try MetricsFixtureLibrary(library: library).descriptor()
    }

    /// A configuration running the fixture in `mode` as probe `m`.
    func config(mode: String, isolation: String, timeout: String = "5s") throws -> URL {
        try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "200ms", "isolation": "\(isolation)"}, "probes": [
              {"id": "m", "plugin": "metrics", "timeout": "\(timeout)", "config": {"mode": "\(mode)"}}]}
            """, in: dir, name: "config-\(mode)-\(isolation).json")
    }
}
