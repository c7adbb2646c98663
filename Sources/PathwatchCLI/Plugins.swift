import ArgumentParser
import PathwatchAgent
import PathwatchCommands
import PathwatchProbeKit

extension Pathwatch {
    struct Plugins: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plugins",
            abstract: "List the plug-ins found in the configured folders, and why any file was refused; or try one library.",
            discussion: """
                With --try FILE, loads that one library in a child process (never in this one), creates an \
                instance from --config (the probe's config as JSON text, default {}), samples it once and \
                prints what it emitted, or why it failed: a plug-in author's first test. Exit 0 when create \
                and sample succeeded, 1 otherwise.
                """)

        @OptionGroup var options: CommonOptions

        @Option(name: .customLong("try"), help: "A plug-in library to load in a child process, create and sample once.")
        var tryFile: String?

        @Option(help: "With --try: seconds the trial may take before the child is killed.")
        var timeout: Double = 10

        func run() throws {
            if let tryFile { return try runTrial(tryFile) }
            let loaded = options.loadConfig()
            let catalog = PluginCatalog.discover(for: loaded, logger: options.makeLogger(redactor: loaded.redactor))
            let rows = catalog.plugins.map { p in
                [p.name, p.version, "abi \(p.abiVersion)", p.path, p.summary]
            }
            let header = ["NAME", "VERSION", "ABI", "FILE", "DESCRIPTION"]
            let widths = (0..<4).map { i in ([header] + rows).map { $0[i].count }.max() ?? 0 }
            for row in [header] + rows {
                print((0..<4).map { row[$0].padding(widths[$0]) }.joined(separator: "  ") + "  " + row[4])
            }
            if !catalog.refused.isEmpty {
                print("\nREFUSED")
                for refusal in catalog.refused { print("\(refusal.path): \(refusal.reason)") }
            }
        }
    }
}

extension Pathwatch.Plugins {
    func runTrial(_ file: String) throws {
        let configJSON = options.config ?? "{}"
        var executable = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &executable, executable.count - 1)
        guard length > 0 else { throw ValidationError("cannot find this executable (/proc/self/exe)") }
        let trial = PluginTrial(
            executable: String(decoding: executable[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self),
            file: file, configJSON: configJSON, timeoutSeconds: timeout)
        let outcome = try trial.run()
        for line in PluginTrial.describe(outcome, file: file) { print(line) }
        if !outcome.succeeded { throw ExitCode(1) }
    }
}

/// The child of `plugins --try` (hidden): runs the trial and reports on descriptor 3.
struct TryPluginChild: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "_try-plugin", shouldDisplay: false)

    @Argument var file: String
    @Argument var configJSON: String
    /// The trial's deadline (CLOCK_MONOTONIC nanoseconds), told to create and sample.
    @Argument var deadlineNanoseconds: Int64

    func run() throws {
        let deadline = Deadline(monotonicNanoseconds: deadlineNanoseconds)
        let status = PluginTrialChild.run(file: file, configJSON: configJSON, deadline: deadline)
        if status != 0 { throw ExitCode(status) }
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
