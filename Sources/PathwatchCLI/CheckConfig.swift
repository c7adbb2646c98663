import ArgumentParser
import PathwatchAgent
import PathwatchCommands

extension Pathwatch {
    struct CheckConfig: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-config",
            abstract: "Validate the configuration and every plug-in it names, without running probes; exit 0 valid, 78 invalid.")

        @OptionGroup var options: CommonOptions

        func run() throws {
            // The verdict keeps a descriptor of its own, as the agent's output does.
            AgentOutput.claim()
            let loaded = options.loadConfig()
            let logger = options.makeLogger(redactor: loaded.redactor)
            let checked: ProbeCreationCheck.Outcome
            do {
                checked = try ProbeCreationCheck.createEveryProbe(loaded, logger: logger)
            } catch {
                for refusal in error.errors { printError("configuration error: \(refusal)") }
                throw ExitCode(ExitStatus.configError)
            }
            let catalog = checked.catalog
            // A refusal names its file, whose folder may be a substituted secret.
            for refusal in catalog.refused { say("note: plug-in refused: \(loaded.redactor.redact(refusal.description))") }
            DescriptorLimit.raiseSoftToHard()
            if let shortage = DescriptorLimit.shortage(for: loaded.config) { say("warning: \(shortage)") }
            let fragments = loaded.origins.fragments
            let from = fragments.isEmpty ? "" : " with \(fragments.joined(separator: ", "))"
            say(
                "\(loaded.file)\(from): valid (\(Plural.count(checked.probes, "probe")), \(Plural.count(loaded.config.sinks.count, "sink"))); "
                    + "limits: \(ConfigBounds.summary)")
        }

        /// One line of the verdict, on the command's own output (AgentOutput).
        private func say(_ line: String) { AgentOutput.write(line + "\n") }
    }
}
