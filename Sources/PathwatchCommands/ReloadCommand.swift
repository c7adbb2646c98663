import Glibc
import PathwatchAgent
import PathwatchSinkKit

/// What `pathwatch reload` does, however its options were read. `pathwatch` reads the forms
/// `ExecReload=` and operators write (`reload`, `--pid PID`, `--timeout SECONDS`) itself, as it
/// reads `run` and `once`: the command-line companion's asynchronous entry would start
/// libdispatch's worker pool, whose raised priority the service's user is refused, and the
/// journal would say "Failed to set thread priority" at every `systemctl reload`.
package enum ReloadCommand {
    package static let defaultTimeout = 60.0

    /// The agent is there but could not take the request, or gave no verdict, within the timeout
    /// (EX_TEMPFAIL from sysexits.h: trying again may succeed).
    package static let busyStatus: Int32 = 75

    /// Prints the verdict and returns the exit status: 0 reloaded, 78 refused, 75 busy (the
    /// agent is there but did not take the request or answer in time), 1 no agent.
    package static func execute(pid: Int32?, timeoutSeconds: Double) -> Int32 {
        let mainPID = getenv("MAINPID").flatMap { Int32(String(cString: $0)) }.flatMap { $0 > 0 ? $0 : nil }
        switch ReloadRequest.perform(pid: pid ?? mainPID, timeoutSeconds: timeoutSeconds) {
        case .reloaded(let summary):
            _ = AgentOutput.write("reloaded: \(summary)\n")
            return 0
        case .refused(let reason):
            printError("reload refused, the running configuration is kept: \(reason)")
            return ExitStatus.configError
        case .busy(let why):
            printError("reload: \(why)")
            return busyStatus
        case .failed(let why):
            printError("reload: \(why)")
            return ExitStatus.failure
        }
    }
}

/// `pathwatch reload [--pid PID] [--timeout SECONDS]`, each option at most once with its value
/// separate; anything else (help, a typo) returns nil and goes to the companion's parser.
package struct ReloadArguments: Sendable {
    package var pid: Int32?
    package var timeout = ReloadCommand.defaultTimeout

    package init?(_ arguments: [String]) {
        guard arguments.count >= 2, arguments[1] == "reload" else { return nil }
        var seenTimeout = false
        var index = 2
        while index < arguments.count {
            guard index + 1 < arguments.count else { return nil }
            let (name, value) = (arguments[index], arguments[index + 1])
            switch name {
            case "--pid":
                guard pid == nil, let number = Int32(value), number > 0 else { return nil }
                pid = number
            case "--timeout":
                guard !seenTimeout, let seconds = Double(value), seconds > 0, seconds.isFinite else { return nil }
                seenTimeout = true
                timeout = seconds
            default: return nil
            }
            index += 2
        }
    }
}
