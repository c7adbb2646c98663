import ArgumentParser
import PathwatchCommands

extension Pathwatch {
    struct Reload: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reload",
            abstract:
                "Ask the running agent to re-read its configuration and wait for its verdict; exit 0 reloaded, 78 refused (the running configuration is kept), 75 busy (the agent did not take the request or answer within the timeout), 1 no agent."
        )

        @Option(
            help:
                "The agent's pid (default: $MAINPID, as systemd sets it for ExecReload=, else the one `pathwatch run` of this user)."
        )
        var pid: Int32?

        @Option(
            help: "Seconds for the whole request: finding the agent, connecting, asking and waiting for its verdict.")
        var timeout: Double = ReloadCommand.defaultTimeout

        func run() throws {
            let status = ReloadCommand.execute(pid: pid, timeoutSeconds: timeout)
            if status != 0 { throw ExitCode(status) }
        }
    }
}
