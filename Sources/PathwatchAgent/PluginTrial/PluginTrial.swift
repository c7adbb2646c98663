import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchPluginHost
import PathwatchProbeKit

/// `pathwatch plugins --try FILE`: a plug-in author's first test. The library is loaded in a
/// child process (this executable again, with a hidden subcommand), never in this one, so a
/// constructor that prints or exits, a crash or a hang is reported, not suffered.
package struct PluginTrial: Sendable {
    /// How far the child got and what it said; the plug-in's own stdout and stderr; how it ended.
    package struct Outcome: Sendable {
        package var steps: [JSONValue]
        package var stdout: String
        package var stderr: String
        package var ending: ChildEnding
        package var timedOut: Bool
        /// The child's report was longer than `reportLimit`: the steps past the cut are lost.
        package var reportCut = false

        /// The last stage the child started ("load", "create", "sample", "destroy", "done").
        package var lastStage: String { steps.last?["stage"]?.stringValue ?? "start" }
        /// What the host refused or left out (a malformed observation, a key emitted twice, a
        /// metric with a bad name): the agent would too, so the trial fails.
        package var refusals: [String] {
            steps.flatMap { $0["problems"]?.arrayValue ?? [] }.compactMap(\.stringValue)
        }
        /// Observations refused whole; the other refusals are parts left out of kept ones.
        package var refusedObservations: Int {
            steps.reduce(0) { $0 + Int($1["refused"]?.numberValue ?? 0) }
        }
        /// With `--strict`, the metrics emitted without a declaration (which the agent takes).
        package var undeclared: [String] {
            steps.flatMap { $0["undeclared"]?.arrayValue ?? [] }.compactMap(\.stringValue)
        }
        package var succeeded: Bool {
            lastStage == "done" && !timedOut && ending == .exited(0) && refusals.isEmpty && undeclared.isEmpty
        }
    }

    /// How much of the child's report is read. A sample's observations arrive in one line, as
    /// large as the plug-in made them: the agent takes a call's result up to its frame bound
    /// (64 MiB), and the same observations written as JSON text may take up to twice that.
    /// (A bound of 1 MiB, shared with stdout and stderr, cut any larger sample, whose line then
    /// did not parse: the trial said the plug-in "exited with status 0 during sample".)
    static let reportLimit = 2 * Frames.maximumLength

    /// Observations printed one by one; the count says how many there were.
    static let shownObservations = 1_000

    /// The child's environment. Its Swift runtime would print a backtrace of the trial child
    /// itself when a plug-in crashes it, which the trial would show as the plug-in's stderr.
    static let childEnvironment = ["SWIFT_BACKTRACE": "enable=no"]

    package var executable: String
    package var file: String
    /// The probe's config as JSON text, or `@FILE`, which the child reads: a file's text may be
    /// longer than one argument of a command line may be (128 KiB), and the child then would
    /// not start at all ("Argument list too long").
    package var configJSON: String
    package var timeoutSeconds: Double
    /// After the sample, how long to watch an event-driven plug-in's descriptor (TrialWatch);
    /// the trial may take this much longer. Each event's deadline is `timeoutSeconds` from when
    /// it is served.
    package var watch: ConfigDuration?
    /// `--strict`: a metric emitted without a declaration fails the trial (UndeclaredMetrics).
    package var strict = false

    package init(
        executable: String, file: String, configJSON: String, timeoutSeconds: Double, watch: ConfigDuration? = nil
    ) {
        self.executable = executable
        self.file = file
        self.configJSON = configJSON
        self.timeoutSeconds = timeoutSeconds
        self.watch = watch
    }

    /// How long the trial's child may take at all: create's and sample's deadlines and graces,
    /// and time to start and load; the child itself ends a call that overruns sooner.
    var backstopSeconds: Double {
        let timeout = ConfigDuration(nanoseconds: Int64(timeoutSeconds * 1e9))
        let grace = CallDeadlines.grace.seconds
        return CallDeadlines.createTimeout(probeTimeout: timeout).seconds + timeoutSeconds + 2 * grace + 5
    }

    /// Runs the trial; `onStep` sees each step of the child's report as it comes (a watch's
    /// events, as they happen), on the calling thread.
    package func run(onStep: (JSONValue) -> Void = { _ in }) throws(TrialProcess.SpawnError) -> Outcome {
        // The child gives create and sample the agent's deadlines, and ends itself when a call
        // overruns one by the grace; the trial's own limit is only a backstop past both.
        var arguments = ["_try-plugin", file, configJSON, String(Int64(timeoutSeconds * 1e9))]
        if strict { arguments.append("--strict") }
        if let watch {
            arguments += [
                "--watch-ns", String(watch.nanoseconds), "--event-timeout-ns", String(Int64(timeoutSeconds * 1e9)),
            ]
        }
        // A call the plug-in aims outside its own processes is refused, and said on stderr.
        let refusals = RefusedCallLog { _ = FileDescriptorWriter.writeAll(STDERR_FILENO, "pathwatch: plug-in \($0)\n") }
        let child = try TrialProcess.spawn(
            executable, arguments: arguments, extraDescriptor: PluginTrialChild.reportDescriptor,
            environment: Self.childEnvironment,
            supervision: (PluginTrialChild.supervisionDescriptor, { refusals.record($0) }))
        var pending: [UInt8] = []
        // Where the search for the next line's end goes on: a sample's step is one line of
        // megabytes arriving a pipe's worth at a time, and searching it from its start at every
        // chunk took minutes for 8 MB.
        var searched = 0
        // Each line is parsed once, as it arrives: the steps are kept from here, not parsed
        // again from the whole report (twice the work, for a sample of megabytes).
        var steps: [JSONValue] = []
        let collected = child.collect(
            timeoutSeconds: backstopSeconds + (watch?.seconds ?? 0), extraLimit: Self.reportLimit
        ) { chunk in
            pending += chunk
            while let newline = pending[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                if let step = try? JSONParser.parse(bytes: Array(pending[..<newline])) {
                    steps.append(step)
                    onStep(step)
                }
                pending.removeSubrange(...newline)
                searched = 0
            }
            searched = pending.count
        }
        // A last line the child ended without its newline.
        if !pending.isEmpty, let step = try? JSONParser.parse(bytes: pending) { steps.append(step) }
        return Outcome(
            steps: steps, stdout: collected.stdout, stderr: collected.stderr, ending: collected.ending,
            timedOut: collected.timedOut,
            reportCut: collected.extraCut)
    }

    /// What a person reads: the file, each step, and how the trial ended.
    package static func describe(_ outcome: Outcome, file: String) -> [String] {
        var reader = StepReader()
        return ["file: \(TextSafety.escaped(file))"] + outcome.steps.flatMap { reader.lines(for: $0) }
            + ending(of: outcome)
    }

    /// What a person reads after the steps: refusals, how the child ended, what it printed.
    package static func ending(of outcome: Outcome) -> [String] {
        var lines: [String] = []
        let (stderr, fault) = splitFaultLine(outcome)
        if outcome.steps.contains(where: { $0["change"]?.stringValue == "undrained" }) {
            lines.append(
                "the plug-in did not drain its event descriptor: handle_event must read it until it would block")
        }
        if !outcome.refusals.isEmpty {
            // Counted as they are: observations refused whole, and parts left out of kept ones.
            let whole = outcome.refusedObservations
            let parts = outcome.refusals.count - whole
            var said: [String] = []
            if whole > 0 { said.append("\(whole) observation\(whole == 1 ? " was" : "s were") refused") }
            if parts > 0 { said.append("\(parts) part\(parts == 1 ? " was" : "s were") left out of kept observations") }
            lines.append(said.joined(separator: " and ") + "; the agent does the same")
        }
        if !outcome.undeclared.isEmpty {
            let count = outcome.undeclared.count
            lines.append(
                "\(count) metric\(count == 1 ? " is" : "s are") not declared (--strict); the agent takes \(count == 1 ? "it" : "them"), and says so once"
            )
        }
        if outcome.reportCut {
            lines.append(
                "the trial's report of \(outcome.lastStage) was longer than \(reportLimit >> 20) MiB and was cut "
                    + "(the agent refuses a call's result over \(Frames.maximumLength >> 20) MiB)")
        } else if let overran = outcome.steps.last(where: { $0["overran"] != nil }) {
            let stage = overran["call"]?.stringValue ?? outcome.lastStage
            lines.append("plug-in \(stage) \(overran["overran"]?.stringValue ?? ""); the child was killed")
        } else if outcome.timedOut {
            lines.append(
                "the plug-in did not finish \(outcome.lastStage) within the trial's limit; the child was killed")
        } else if case .signaled(let signal) = outcome.ending {
            lines.append(
                "plug-in crashed: \(ChildEnd.signalName(signal)) (signal \(signal)) during \(outcome.lastStage)")
        } else if case .exited(let code) = outcome.ending, outcome.lastStage != "done",
            code != 1 || outcome.steps.last?["error"] == nil
        {
            lines.append("plug-in exited with status \(code) during \(outcome.lastStage)")
        }
        // Said on its own, after the crash it explains: not something the plug-in wrote.
        if let fault { lines.append(fault) }
        if !outcome.stdout.isEmpty {
            lines.append(
                "the plug-in wrote to stdout (\(outcome.stdout.utf8.count) bytes): \(Self.excerpt(outcome.stdout))")
        }
        if !stderr.isEmpty {
            lines.append("the plug-in wrote to stderr (\(stderr.utf8.count) bytes): \(Self.excerpt(stderr))")
        }
        return lines.map(TextSafety.escaped)
    }

    /// The child's stderr without the line its fault handler wrote last when the plug-in crashed
    /// ("pathwatch: SIGILL (signal 4) in plug-in NAME during sample at FILE+0x…"), and that line:
    /// shown whole, where the excerpt of a debug build's message and stack trace would cut it off.
    static func splitFaultLine(_ outcome: Outcome) -> (stderr: String, fault: String?) {
        let text = outcome.stderr
        guard case .signaled = outcome.ending, text.hasSuffix("\n") else { return (text, nil) }
        let body = text.dropLast()
        let start = body.lastIndex(of: "\n").map(body.index(after:)) ?? body.startIndex
        guard body[start...].hasPrefix("pathwatch: SIG") else { return (text, nil) }
        return (String(text[..<start]), String(body[start...]))
    }

    static func excerpt(_ text: String) -> String {
        text.count > 400 ? String(text.prefix(400)) + "…" : text
    }
}
