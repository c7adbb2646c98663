import Foundation
import PathwatchTestSupport
import Testing

/// The example conf.d fragments the package installs (dist/examples/conf.d, under
/// /usr/share/doc/pathwatch/examples/conf.d): one per probe plug-in and per sink type, each valid
/// as shipped on top of the installed configuration, as `pathwatch check-config` judges it.
@Suite struct ExampleFragmentsTests {
    static let folder = "dist/examples/conf.d"
    static var fragments: [String] {
        RepositoryFiles(root: Distribution.root).files(under: folder, endingWith: [".json"])
    }

    static let plugins: Set<String> = [
        "linkstate", "reachability", "connectivity", "dns", "ping", "disk", "bandwidth", "exec", "loadavg",
    ]
    static let sinkTypes: Set<String> = ["stdout", "file", "webhook", "email", "remote_write", "otlp", "http"]

    @Test func thereIsOneFragmentPerPluginAndPerSinkType() throws {
        var plugins: [String] = []
        var sinks: [String] = []
        for path in Self.fragments {
            let data = try Data(contentsOf: Distribution.root.appendingPathComponent(path))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(path)")
            plugins += (object["probes"] as? [[String: Any]] ?? []).compactMap { $0["plugin"] as? String }
            sinks += (object["sinks"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
        }
        #expect(plugins.sorted() == Self.plugins.sorted(), "probes of the fragments: \(plugins)")
        #expect(sinks.sorted() == Self.sinkTypes.sorted(), "sinks of the fragments: \(sinks)")
        // The package installs exactly these, beside the README that says what to change.
        let script = try String(
            contentsOf: Distribution.root.appendingPathComponent("dist/install.sh"), encoding: .utf8)
        #expect(script.contains("share/doc/pathwatch/examples/conf.d"))
    }

    /// Each fragment in conf.d beside the configuration `make install` and the package install
    /// (dist/config.json.in, with the build's plug-ins and a state folder of the test's own):
    /// check-config accepts it, counting the fragment's probe or sink with the main file's.
    @Test(arguments: fragments)
    func checkConfigAcceptsTheFragmentOnTheInstalledConfiguration(fragment: String) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-fragment")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let state = dir.appendingPathComponent("state")
        let collector = dir.appendingPathComponent("node-exporter")
        for folder in [state, collector, dir.appendingPathComponent("conf.d")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let template = try String(
            contentsOf: Distribution.root.appendingPathComponent("dist/config.json.in"), encoding: .utf8)
        let main =
            template
            .replacingOccurrences(of: "@PLUGIN_DIRS@", with: "\"\(TestEnvironment.productsDirectory.path)\"")
            .replacingOccurrences(of: "@STATEDIR@", with: state.path)
        let config = try writeConfig(main, in: dir)
        // The textfile fragment names Debian's collector folder, which the documented set-up
        // makes writable by the service; here a folder of the test's stands in for it.
        let text = try String(contentsOf: Distribution.root.appendingPathComponent(fragment), encoding: .utf8)
            .replacingOccurrences(of: "/var/lib/prometheus/node-exporter", with: collector.path)
        let name = (fragment as NSString).lastPathComponent
        try text.write(to: dir.appendingPathComponent("conf.d/\(name)"), atomically: true, encoding: .utf8)

        let result = try run(
            [TestEnvironment.pathwatchBinary.path, "check-config", "--config", config.path], timeout: 60)
        #expect(result.status == 0, "\(name): \(result.stdout)\(result.stderr)")
        // The main file has 4 probes and 2 sinks; a fragment adds one probe or one sink.
        let fragmentObject =
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
        let probes = 4 + (fragmentObject["probes"] as? [Any] ?? []).count
        let sinks = 2 + (fragmentObject["sinks"] as? [Any] ?? []).count
        #expect(result.stdout.contains("(\(probes) probes, \(sinks) sinks)"), "\(name): \(result.stdout)")
    }
}
