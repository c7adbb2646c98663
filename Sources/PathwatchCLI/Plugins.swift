import ArgumentParser
import Glibc
import PathwatchAgent
import PathwatchBase
import PathwatchCommands
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit
import PathwatchSinks

extension Pathwatch {
    struct Plugins: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plugins",
            abstract:
                "List the plug-ins found in the configured folders, and why any file was refused; or try one library.",
            discussion: """
                With --try FILE, loads that one library in a child process (never in this one), creates an \
                instance from --probe-config (the probe's config as JSON text, or @FILE for a file holding it; \
                default {}), samples it once and prints what it emitted, or why it failed: a plug-in author's \
                first test. A FILE without a slash is a file in the current folder. With --watch DURATION, an \
                event-driven plug-in's descriptor is then watched for that long, and what each event emits is \
                printed as it happens. Exit 0 when every call succeeded (and, watched, the descriptor was \
                drained), 1 otherwise.
                """)

        @OptionGroup var options: CommonOptions

        @Option(name: .customLong("try"), help: "A plug-in library to load in a child process, create and sample once.")
        var tryFile: String?

        @Option(
            name: .customLong("probe-config"),
            help: "With --try: the probe's config, as JSON text or @FILE (default {}).")
        var probeConfig: String?

        @Option(
            help:
                "With --try: the probe's timeout in seconds, as the agent gives it (a probe's timeout is its interval, 10 s unless configured): sample's deadline, create's (at least 5 s) and each event's; a call still running 1 s after its deadline ends the trial, as the agent gives up on it."
        )
        var timeout: Double = 10

        @Flag(
            help:
                "With --try: a metric the plug-in emits without declaring it in its descriptor fails the trial (the agent takes it, and says so once)."
        )
        var strict = false

        @Option(
            help: ArgumentHelp(
                "With --try, for an event-driven plug-in: after the sample, watch its event descriptor this long (\"30s\", \"2m\") and print what each event emits.",
                valueName: "duration"))
        var watch: String?

        func run() throws {
            if let tryFile { return try runTrial(tryFile) }
            // With inline isolation the list opens every plug-in file in this process (isolated,
            // a child reads them), and a library's constructor may print to descriptor 1: the
            // list keeps a descriptor of its own (AgentOutput).
            AgentOutput.claim()
            let loaded = options.loadConfig(sinks: .standard)
            let catalog = PluginCatalog.discover(for: loaded, logger: options.makeLogger(redactor: loaded.redactor))
            // A descriptor's version and description are the plug-in's own text: a control or
            // bidirectional character in them is shown as its code point, never sent to the terminal.
            let rows = catalog.plugins.map { p in
                [p.name, p.version, "abi \(p.abiVersion)", p.path, p.summary].map(TextSafety.escaped)
            }
            let header = ["NAME", "VERSION", "ABI", "FILE", "DESCRIPTION"]
            let widths = (0..<4).map { i in ([header] + rows).map { $0[i].count }.max() ?? 0 }
            for row in [header] + rows {
                say((0..<4).map { row[$0].padding(widths[$0]) }.joined(separator: "  ") + "  " + row[4])
            }
            if !catalog.refused.isEmpty {
                say("\nREFUSED")
                for refusal in catalog.refused { say(TextSafety.escaped("\(refusal.path): \(refusal.reason)")) }
            }
        }

        private func say(_ line: String) { AgentOutput.write(line + "\n") }
    }
}

extension Pathwatch.Plugins {
    func runTrial(_ argument: String) throws {
        let redactor = SecretRedactor()
        let file: String
        let configJSON: String
        do {
            file = try TrialInputs.libraryPath(argument)
            // Read here for a clear error before any child starts; the child reads `@FILE` again
            // itself (PluginTrial.configJSON).
            configJSON = try probeConfigArgument()
            // The child substitutes the same references; their values are kept here only to be
            // redacted from what is printed.
            _ = try TrialInputs.probeConfig(configJSON, redactor: redactor)
        } catch {
            throw ValidationError(error.description)
        }
        var executable = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &executable, executable.count - 1)
        guard length > 0 else { throw ValidationError("cannot find this executable (/proc/self/exe)") }
        var trial = PluginTrial(
            executable: String(decoding: executable[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self),
            file: file, configJSON: configJSON, timeoutSeconds: timeout, watch: try watchDuration())
        trial.strict = strict
        // Each step as it comes: a watch's events as they happen.
        print("file: \(TextSafety.escaped(argument))")
        var reader = PluginTrial.StepReader()
        let outcome = try trial.run { step in
            for line in reader.lines(for: step) { print(redactor.redact(line)) }
            fflush(nil)
        }
        for line in PluginTrial.ending(of: outcome) { print(redactor.redact(line)) }
        if !outcome.succeeded { throw ExitCode(1) }
    }

    /// `--watch`, read as the configuration reads a duration.
    private func watchDuration() throws -> ConfigDuration? {
        guard let watch else { return nil }
        guard let duration = ConfigDuration(parsing: watch), duration.nanoseconds > 0 else {
            throw ValidationError("--watch \(watch): expected a duration such as 30s or 2m")
        }
        return duration
    }

    /// `--probe-config`, or `--config`, which meant the probe's JSON text here before it had a name
    /// of its own (everywhere else `--config` is the configuration file): still taken, with a word.
    private func probeConfigArgument() throws(TrialInputs.Problem) -> String {
        switch (probeConfig, options.config) {
        case (let given?, nil): return given
        case (nil, let old?):
            printError("warning: with --try, --config is deprecated; use --probe-config JSON or --probe-config @FILE")
            return old
        case (_?, _?): throw TrialInputs.Problem(description: "--try takes --probe-config, not --config as well")
        case (nil, nil): return "{}"
        }
    }
}

/// The child of `plugins --try` (hidden): runs the trial and reports on descriptor 3.
struct TryPluginChild: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "_try-plugin", shouldDisplay: false)

    @Argument var file: String
    /// JSON text or `@FILE`.
    @Argument var configArgument: String
    /// The probe's timeout, in nanoseconds: the deadlines of create and sample follow from it.
    @Argument var timeoutNanoseconds: Int64
    /// `--watch`: how long to watch the event descriptor after the sample, in nanoseconds.
    @Option(name: .customLong("watch-ns")) var watchNanoseconds: Int64?
    /// Each event's deadline from when it is served, in nanoseconds.
    @Option(name: .customLong("event-timeout-ns")) var eventTimeoutNanoseconds: Int64 = 10_000_000_000
    /// `--try --strict`.
    @Flag var strict = false

    func run() throws {
        let watch = watchNanoseconds.map {
            (
                duration: ConfigDuration(nanoseconds: $0),
                eventTimeout: ConfigDuration(nanoseconds: eventTimeoutNanoseconds)
            )
        }
        let status = PluginTrialChild.run(
            file: file, configArgument: configArgument, timeout: ConfigDuration(nanoseconds: timeoutNanoseconds),
            watch: watch, strict: strict)
        if status != 0 { throw ExitCode(status) }
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
