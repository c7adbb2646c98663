import ArgumentParser
import PathwatchCommands

extension Pathwatch {
    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reload",
            abstract:
                "Ask the running agent to re-read its configuration and wait for its verdict; exit 0 reloaded, 78 refused (the running configuration is kept), 1 no agent or no answer."
        )

        @Option(
            help:
                "The agent's pid (default: $MAINPID, as systemd sets it for ExecReload=, else the one `pathwatch run` of this user)."
        )
        var pid: Int32?

        @Option(help: "Seconds to wait for the verdict.")
        var timeout: Double = ReloadCommand.defaultTimeout

        func run() throws {
            let status = ReloadCommand.execute(pid: pid, timeoutSeconds: timeout)
            if status != 0 { throw ExitCode(status) }
        }
    }
}
