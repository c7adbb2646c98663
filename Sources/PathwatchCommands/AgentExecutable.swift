/// The one way the agent runs: `run` and `once` in the agent's own executable, `pathwatch`, on
/// its own executor, without the argument parser mapped. When the command-line companion parsed a
/// spelling the plain reading declined (`pathwatch run -c f`, `--log-level debug` before the
/// subcommand's options, …), it hands the command back in the plain form by replacing itself
/// with `pathwatch`; it never runs an agent of its own.
package enum AgentExecutable {
    package static let name = "pathwatch"

    /// Where `pathwatch` is, beside the companion's real path: in the same folder (the build
    /// tree), then `../../bin` (the installed companion is lib/pathwatch/pathwatch-cli).
    package static func candidates(companion: String) -> [String] {
        let folder = companion.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return ["\(folder)/\(name)", "\(folder)/../../bin/\(name)"]
    }

    /// Replaces this process with `pathwatch` running `plain`. `arguments` always reads back
    /// (PlainArgumentsTests); were it ever declined, it is refused here rather than bounced back
    /// and forth between the two programs.
    package static func replaceProcess(with plain: PlainArguments, program: String) -> Never {
        let arguments = [program] + plain.arguments
        guard PlainArguments(arguments) != nil else {
            printError("cannot hand \(arguments.dropFirst().joined(separator: " ")) to \(name) in its plain form")
            exitProcess(ExitStatus.usage)
        }
        guard let companion = ProcessImage.ownExecutable() else {
            printError("cannot find this executable (/proc/self/exe), so not the agent \(name) beside it")
            exitProcess(ExitStatus.failure)
        }
        ProcessImage.replace(
            with: candidates(companion: companion), arguments: arguments, what: "the agent executable \(name)")
    }
}
