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
        // Each of these names itself in its configuration: ArgumentParser would otherwise derive
        // every name from `String(describing:)` of the type, a search of the runtime's
        // conformance tables per subcommand on every start.
        subcommands: [Run.self, Once.self, Status.self, CheckConfig.self, Plugins.self, TryPluginChild.self, PluginChildCommand.self])

    /// ArgumentParser's own entry, except that an `ExitCode` (how `once` reports its state, and
    /// every command its exit status) ends the process at once: the library's error path builds
    /// the command's usage text for any error, then discards it for an exit code.
    static func main() async {
        // `once` with plain arguments, and a plug-in child as the agent starts it, skip
        // ArgumentParser altogether (see OnceArguments, PluginChildArguments).
        if let once = OnceArguments(CommandLine.arguments) { Once.execute(options: once.options, format: once.format) }
        if let child = PluginChildArguments(CommandLine.arguments) { await PluginChildCommand.serve(child.options) }
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
        help: "The configuration file (default: $PATHWATCH_CONFIG, else ./config.json if it exists, else /etc/pathwatch/config.json); conf.d/*.json beside it is appended.")
    var config: String?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning or error. Logs go to stderr.")
    var logLevel: LogLevelOption = .info
}

/// Exit statuses of the contract (SPEC §1).
enum ExitStatus {
    /// A configuration error (EX_CONFIG from sysexits.h).
    static let configError = ExitCode(78)
}

/// exit(3), which flushes what was printed (inside a command type, `exit` is ArgumentParser's).
func exitProcess(_ status: Int32) -> Never { exit(status) }

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
