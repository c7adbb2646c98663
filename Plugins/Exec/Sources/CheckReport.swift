import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules

/// A command's run as its check: the state, the message (the reason first when the run itself
/// went wrong), the metrics of its output and the probe's own about the run.
enum CheckReport {
    /// Problems said in a message at most; the rest are counted.
    static let problemsShown = 5
    static let messageLimit = 1_024

    static func observation(_ command: CheckCommand, _ run: CommandRun) -> Observation {
        var names = MetricNames.ofCheck
        var problems: [String] = []
        var metrics: [Metric] = []
        let text = String(decoding: run.stdout, as: UTF8.self)
        var state: CheckState
        var message: String
        switch command.format {
        case .nagios:
            let output = NagiosOutput(text)
            let perf = PerfDataParser.parse(output.perfData)
            problems += perf.problems.map { "perfdata \($0)" }
            metrics = PerfMetrics.metrics(
                of: perf.data, names: &names, problems: &problems, legacyNames: command.legacyNames)
            message = output.message
        case .prometheus:
            let parsed = PrometheusText.parse(text)
            problems += parsed.problems
            metrics =
                command.legacyNames
                ? PrometheusText.foldedMetrics(of: parsed.samples, names: &names, problems: &problems)
                : PrometheusText.metrics(of: parsed, names: &names, problems: &problems)
            message = ""
        }
        keepWithinLimit(&metrics, problems: &problems)
        if command.format == .prometheus { message = "\(metrics.count) metric\(metrics.count == 1 ? "" : "s")" }
        var reason: String?
        switch run.ending {
        case .exited(let status):
            switch status {
            case 0: state = .ok
            case 1: state = .warning
            case 2: state = .critical
            case 3: state = .unknown
            default:
                state = .unknown
                reason = "exited with status \(status)"
            }
        case .signaled(let signal):
            state = .unknown
            reason = "killed by \(ProcessGroupKill.name(signal))"
        case .timedOut(let after, let signal, let status, let graceUsed):
            state = .unknown
            if let signal {
                reason =
                    "killed by \(ProcessGroupKill.name(signal)) after timeout \(after)"
                    + (graceUsed ? " (it ignored SIGTERM)" : "")
            } else {
                reason = "timed out after \(after); exited with status \(status ?? 0) on SIGTERM"
            }
            if run.outputClosedEarly { reason! += "; it had closed its output and kept running" }
        case .notStarted(let why):
            state = .unknown
            reason = why
        case .unreaped(let after):
            state = .unknown
            reason = "timed out after \(after) and still not ended by SIGKILL (stuck in the kernel); reaped later"
        }
        if reason != nil, command.format == .nagios || message.hasPrefix("0 metric") {
            // The first line of what it said, stdout's or else stderr's, tells why.
            let said = message.isEmpty ? NagiosOutput(String(decoding: run.stderr, as: UTF8.self)).message : message
            message = said.isEmpty ? reason! : reason! + ": " + said
        } else if let reason {
            message = reason + "; " + message
        } else if message.isEmpty {
            message = "(no output)"
        }
        if run.stdoutCut > 0 {
            problems.append(
                "output cut at \(run.stdout.count) bytes (max_output); \(run.stdoutCut) more bytes read and not kept")
        }
        if run.outputHeldOpen {
            problems.append("a process it started still held its output after it exited: its process group was killed")
        } else if run.leftProcesses {
            problems.append("it left processes running in its process group: killed")
        }
        if !problems.isEmpty {
            let shown = problems.prefix(problemsShown).joined(separator: "; ")
            let more = problems.count > problemsShown ? "; and \(problems.count - problemsShown) more" : ""
            message += " [" + shown + more + "]"
        }
        // What a command printed is shown, never obeyed: an escape sequence or a bidirectional
        // override would reach a terminal, a log line or the page as it was written.
        message = TextSafety.escaped(message)
        if message.utf8.count > messageLimit {
            message = String(message.utf8.prefix(messageLimit - 3)).map { $0 + "…" } ?? message
        }
        if case .notStarted = run.ending {
        } else {
            metrics.append(Metric("command_duration_ms", Double(run.durationNanoseconds) / 1e6))
            if case .exited(let status) = run.ending { metrics.append(Metric("command_exit_status", Double(status))) }
            metrics.append(Metric("command_output_bytes", Double(run.stdout.count + run.stdoutCut)))
        }
        return Observation(
            key: command.name, state: state, message: message, metrics: metrics, labels: [("command", command.argv[0])])
    }

    /// A check carries at most `ObservationLimits.itemsPerObservation` metrics, the probe's own
    /// among them: past that, the first of the output's are kept (the agent would refuse the
    /// whole check), and the message says how many were left out, first among its problems.
    static func keepWithinLimit(_ metrics: inout [Metric], problems: inout [String]) {
        let room = ObservationLimits.itemsPerObservation - ExecProbe.metrics.count
        guard metrics.count > room else { return }
        let leftOut = metrics.count - room
        metrics.removeLast(leftOut)
        problems.insert(
            "\(leftOut) more metrics left out: a check carries at most \(ObservationLimits.itemsPerObservation), "
                + "the first \(room) of the output kept",
            at: 0)
    }
}
