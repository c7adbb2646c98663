import Foundation
import PathwatchTestSupport

/// Builds the C example the way an out-of-tree author would: its one source file and the ABI
/// header copied into an empty folder, compiled with `cc` and json-c, nothing else of the project.
struct ExampleBuild {
    let root: URL
    /// The plug-in folder handed to the agent: 0755 and ours, as the agent requires.
    let pluginDirectory: URL

    static var exampleSource: URL {
        TestEnvironment.packageRoot.appendingPathComponent("Plugins/Examples/LoadAvg/loadavg.c")
    }

    init() throws {
        root = try TestEnvironment.makeTemporaryDirectory("pathwatch-example")
        let fm = FileManager.default
        let source = root.appendingPathComponent("src")
        pluginDirectory = root.appendingPathComponent("plugins")
        try fm.createDirectory(at: source, withIntermediateDirectories: false)
        try fm.createDirectory(at: pluginDirectory, withIntermediateDirectories: false)
        for folder in [root, pluginDirectory] {
            try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        }
        try fm.copyItem(at: Self.exampleSource, to: source.appendingPathComponent("loadavg.c"))
        try fm.copyItem(
            at: TestEnvironment.probeHeaderDirectory.appendingPathComponent("pathwatch_probe.h"),
            to: source.appendingPathComponent("pathwatch_probe.h"))
        // The documented command, plus warnings as errors: the example must be clean C.
        let result = try sh(
            """
            cd '\(source.path)'
            cc -Wall -Wextra -Werror -shared -fPIC -I . $(pkg-config --cflags json-c) loadavg.c \
               $(pkg-config --libs json-c) -o '\(pluginDirectory.path)/libpathwatch_loadavg.so'
            """)
        guard result.status == 0 else { throw TestFailure("the example does not compile:\n\(result.stderr)") }
    }

    func cleanUp() { TestEnvironment.removeTemporaryDirectory(root) }

    /// Writes a config with one `loadavg` probe (whose `config` is `probeConfig`, JSON text) and
    /// runs `pathwatch once` on it.
    func once(probeConfig: String) throws -> ProcessResult {
        let config = root.appendingPathComponent("config.json")
        let text = """
            {"agent": {"name": "example-test", "plugin_dirs": ["\(pluginDirectory.path)"]},
             "probes": [{"id": "load", "plugin": "loadavg", "timeout": "10s", "config": \(probeConfig)}]}
            """
        try text.write(to: config, atomically: true, encoding: .utf8)
        return try run(Unprivileged.pathwatch(["once", "--config", config.path, "--format", "json"]))
    }
}

/// One reading of /proc/loadavg: "0.20 0.18 0.12 1/80 11206".
struct LoadAverage {
    var load: [Double]
    var running: Double
    var tasks: Double

    static func read() throws -> LoadAverage {
        let text = try String(contentsOfFile: "/proc/loadavg", encoding: .utf8)
        let fields = text.split(separator: " ")
        let counts = fields.count > 3 ? fields[3].split(separator: "/") : []
        guard fields.count >= 4, counts.count == 2, let running = Double(counts[0]), let tasks = Double(counts[1])
        else {
            throw TestFailure("unexpected /proc/loadavg: \(text)")
        }
        return LoadAverage(
            load: try fields[0..<3].map {
                guard let value = Double($0) else { throw TestFailure("unexpected /proc/loadavg: \(text)") }
                return value
            }, running: running, tasks: tasks)
    }
}
