import ArgumentParser
import Glibc
import PathwatchCommands

extension Pathwatch {
    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reload",
            abstract: "Ask the running agent to re-read its configuration and wait for its verdict; exit 0 reloaded, 78 refused (the running configuration is kept), 1 no agent or no answer.")

        @Option(help: "The agent's pid (default: $MAINPID, as systemd sets it for ExecReload=, else the one `pathwatch run` of this user).")
        var pid: Int32?

        @Option(help: "Seconds to wait for the verdict.")
        var timeout: Double = 60

        func run() throws {
            let mainPID = getenv("MAINPID").flatMap { Int32(String(cString: $0)) }.flatMap { $0 > 0 ? $0 : nil }
            switch ReloadRequest.perform(pid: pid ?? mainPID, timeoutSeconds: timeout) {
            case .reloaded(let summary):
                print("reloaded: \(summary)")
            case .refused(let reason):
                printError("reload refused, the running configuration is kept: \(reason)")
                throw ExitCode(ExitStatus.configError)
            case .failed(let why):
                printError("reload: \(why)")
                throw ExitCode(ExitStatus.failure)
            }
        }
    }
}
