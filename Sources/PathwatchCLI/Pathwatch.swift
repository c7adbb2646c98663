import ArgumentParser
import Glibc
import PathwatchAgent
import PathwatchBase
import PathwatchCommands

/// `pathwatch-cli`: the whole command line of `pathwatch`, defined with swift-argument-parser.
/// The agent's executable reads the plain forms of `run`, `once` and `plugin-child` itself and
/// hands every other command line to this one (PathwatchCommands' CommandLineCompanion); what the
/// commands do lives in PathwatchCommands and PathwatchAgent.
@main
struct Pathwatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pathwatch",
        abstract: "A host monitoring agent: link state, reachability, disk and bandwidth probes loaded as plug-ins.",
        discussion: discussion,
        version: Release.version,
        // Each of these names itself in its configuration: ArgumentParser would otherwise derive
        // every name from `String(describing:)` of the type, a search of the runtime's
        // conformance tables per subcommand on every start.
        subcommands: [
            Run.self, Once.self, Status.self, Silence.self, Reload.self, CheckConfig.self, Plugins.self,
            TryPluginChild.self,
            PluginChildCommand.self,
        ])

    /// ArgumentParser's own entry, except that an `ExitCode` (how `status` reports its state, and
    /// every command its exit status) ends the process at once: the library's error path builds
    /// the command's usage text for any error, then discards it for an exit code.
    static func main() async {
        // As the agent's executable does: `plugins`, `check-config` and `--try` start plug-in
        // children too (ProcessHardening).
        ProcessHardening.makeUndumpable()
        do {
            var command = try await asyncParseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            exitProcess(code.rawValue)
        } catch {
            exit(withError: error)
        }
    }
}

/// Options every subcommand takes.
struct CommonOptions: ParsableArguments, CommonSettings {
    @Option(
        name: .long,
        help:
            "The configuration file (default: $PATHWATCH_CONFIG, else /etc/pathwatch/config.json); conf.d/*.json beside it is appended."
    )
    var config: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning or error. Logs go to stderr.")
    var logLevel: LogLevelOption = .info
}

/// `--log-level` and `--format` values as ArgumentParser reads them.
extension LogLevelOption: ExpressibleByArgument {}
extension OnceFormat: ExpressibleByArgument {}

extension CommonOptions {
    /// The same options as the agent's executable reads them.
    var plain: PlainCommonOptions { PlainCommonOptions(config: config, logLevel: logLevel) }
}
