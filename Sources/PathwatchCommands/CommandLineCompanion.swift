/// Everything `pathwatch` does not read directly (help, `--version`, `check-config`, `plugins`,
/// `status`, any argument error) is the work of its command-line companion, `pathwatch-cli`:
/// the same commands defined with swift-argument-parser. The agent's executable links neither
/// the parser nor the Foundation library the parser needs, so a running agent and each plug-in
/// child do not carry them (docs/design.md); the companion replaces this process, as git
/// does with its helpers.
package enum CommandLineCompanion {
    /// The companion's file name.
    package static let name = "pathwatch-cli"

    /// Where the companion is looked for, beside this executable's real path: in the same folder
    /// (the build tree), then in `../lib/pathwatch` (the installed layout of contract §9).
    package static func candidates(executable: String) -> [String] {
        let folder = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(
            separator: "/")
        return ["\(folder)/\(name)", "\(folder)/../lib/pathwatch/\(name)"]
    }

    /// Replaces this process with the companion, given the same arguments; says what is missing
    /// and exits 1 when no companion can be started.
    package static func replaceProcess(arguments: [String]) -> Never {
        guard let executable = ProcessImage.ownExecutable() else {
            printError("cannot find this executable (/proc/self/exe), so not its command-line companion \(name)")
            exitProcess(ExitStatus.failure)
        }
        ProcessImage.replace(
            with: candidates(executable: executable), arguments: arguments, what: "the command-line companion \(name)")
    }
}
