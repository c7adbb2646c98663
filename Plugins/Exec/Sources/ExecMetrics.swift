import PathwatchProbeKit

/// The metrics every check has, whatever its command prints (README "Metrics"). The metrics of
/// a command's output are named at run time and cannot be declared: they are gauges named by
/// their suffix (plugins.md).
extension ExecProbe {
    static let metrics: [MetricDeclaration] = [
        .gauge(
            "command_duration_ms", unit: "ms", help: "Time from the command's start to its end and its output read."),
        .gauge("command_exit_status", help: "The command's exit status, when it exited by itself."),
        .gauge("command_output_bytes", unit: "By", help: "Bytes the command wrote to stdout, kept or not."),
    ]
}
