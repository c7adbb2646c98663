import PathwatchJSON
import PathwatchProbeKit

/// Commands as checks: Nagios/Monitoring Plugins, scripts and tools that print Prometheus text,
/// each run at every sample under the probe's deadline, at most `max_parallel` at once, in a
/// process group of its own that is killed when its time is up. One check per command.
final class ExecProbe: Probe {
    typealias Config = ExecConfig

    static let name = "exec"
    static let version = "1.0.0"
    static let summary =
        "Runs commands as checks: the Nagios plug-in API (exit status, message, performance data) or Prometheus text, each in a process group of its own, bounded in time and output."

    static let defaultParallel = 4
    static let defaultOutput = 65_536
    static let defaultGrace = ConfigDuration.seconds(1)
    /// Without a deadline from the host (an agent from before deadlines), a command's default.
    static let defaultTimeout = ConfigDuration.seconds(10)

    let commands: [CheckCommand]
    let maxParallel: Int
    let maxOutput: Int
    let grace: ConfigDuration
    let pending = PendingReaps()

    init(config: ExecConfig) throws {
        guard !config.commands.isEmpty else { throw ProbeConfigError("commands", "expected at least one command") }
        var seen: [String: Int] = [:]
        var commands: [CheckCommand] = []
        for (index, command) in config.commands.enumerated() {
            let path = JSONPath([.key("commands"), .index(index)])
            if let first = seen[command.name] {
                throw ProbeConfigError(
                    path: path.appending("name"),
                    message: "duplicate command name \"\(command.name)\" (also commands[\(first)])")
            }
            seen[command.name] = index
            commands.append(try CheckCommand(command, at: path))
        }
        if let parallel = config.maxParallel, !(1...64).contains(parallel) {
            throw ProbeConfigError("max_parallel", "expected 1 to 64, found \(parallel)")
        }
        if let output = config.maxOutput, !(1_024...16_777_216).contains(output.bytes) {
            throw ProbeConfigError("max_output", "expected 1 KiB to 16 MiB, found \(output)")
        }
        if let grace = config.killGrace, grace.nanoseconds < 0 || grace > .seconds(10) {
            throw ProbeConfigError("kill_grace", "expected 0 to 10s, found \(grace)")
        }
        self.commands = commands
        maxParallel = config.maxParallel ?? Self.defaultParallel
        maxOutput = config.maxOutput.map { Int($0.bytes) } ?? Self.defaultOutput
        grace = config.killGrace ?? Self.defaultGrace
    }

    deinit { pending.reapEnded() }

    func sample(into emitter: Emitter) throws {
        pending.reapEnded()
        // Every command is sent SIGTERM by the deadline less the grace, and SIGKILL by the
        // deadline less what is kept to report in.
        let left = Deadline.current?.allowing(.seconds(86_400)) ?? Self.defaultTimeout
        let grace = min(self.grace.nanoseconds, left.nanoseconds / 4)
        let limits = CommandLimits(
            stopBy: MonotonicClock.nowNanoseconds() + left.nanoseconds - grace, grace: grace, maxOutput: maxOutput)
        let commands = self.commands
        let pending = self.pending
        WorkerThreads.run(count: commands.count, width: maxParallel) { index in
            let run = CommandRunner.run(commands[index], limits: limits, pending: pending)
            emitter.emit(CheckReport.observation(commands[index], run))
        }
    }
}
