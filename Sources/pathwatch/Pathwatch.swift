import ArgumentParser
import PathwatchAgent

/// `pathwatch`: the command line only; everything it does lives in PathwatchAgent.
@main
struct Pathwatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pathwatch",
        abstract: "A host monitoring agent: link state, reachability, disk and bandwidth probes loaded as plug-ins.",
        discussion: discussion,
        version: "0.1.0",
        subcommands: [Run.self, Once.self, Status.self, CheckConfig.self, Plugins.self, TryPluginChild.self, PluginChildCommand.self])
}

/// Options every subcommand takes.
struct CommonOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "The configuration file (default: $PATHWATCH_CONFIG, else ./config.json if it exists, else /etc/pathwatch/config.json); conf.d/*.json beside it is appended.")
    var config: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning or error. Logs go to stderr.")
    var logLevel: LogLevelOption = .info

    /// The file `--config`, the environment or the installed default names (SPEC §1).
    var configFile: String { ConfigLocation.resolve(explicit: config) }
}

/// Exit statuses of the contract (SPEC §1).
enum ExitStatus {
    /// A configuration error (EX_CONFIG from sysexits.h).
    static let configError = ExitCode(78)
}
