import ArgumentParser
import Glibc
import PathwatchAgent
import PathwatchCommands

extension Pathwatch {
    struct CheckConfig: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-config",
            abstract: "Validate the configuration and every plug-in it names, without running probes; exit 0 valid, 78 invalid.")

        @OptionGroup var options: CommonOptions

        func run() throws {
            // An inline probe's plug-in is created in this process and may print to descriptor 1:
            // the verdict keeps a descriptor of its own, as the agent's output does.
            AgentOutput.claim()
            let loaded = options.loadConfig()
            let logger = options.makeLogger(redactor: loaded.redactor)
            let catalog = PluginCatalog.discover(for: loaded, logger: logger)
            let created: [ProbeSetup.Created]
            do {
                created = try ProbeSetup.instantiate(loaded, catalog: catalog, logger: logger)
            } catch {
                printError("configuration error: \(error)")
                throw ExitCode(ExitStatus.configError)
            }
            // A plug-in whose child died creating its instance is not a configuration error (the
            // agent would start it again), but the operator should know before starting.
            for c in created where c.instance.health.state != .running {
                say("warning: probe \(c.config.id): \(loaded.redactor.redact(c.instance.health.lastError ?? "not running"))")
            }
            created.forEach { $0.instance.destroy() }
            // A refusal names its file, whose folder may be a substituted secret.
            for refusal in catalog.refused { say("note: plug-in refused: \(loaded.redactor.redact(refusal.description))") }
            DescriptorLimit.raiseSoftToHard()
            if let shortage = DescriptorLimit.shortage(for: loaded.config) { say("warning: \(shortage)") }
            // As root, the service's user must pass too: it is who reads the secrets and writes
            // the folders when the service reloads this file.
            let caller = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(getuid())"
            var checkedAs = "checked as \(caller)"
            switch ServiceUserCheck.run(configFile: loaded.file) {
            case .notApplicable: break
            case .valid(let user): checkedAs += " and as the service's user \(user)"
            case .refused(let user, let output, let status):
                printError("as the service's user \(user): \(output)")
                throw ExitCode(status == ExitStatus.configError ? ExitStatus.configError : ExitStatus.failure)
            }
            let fragments = loaded.origins.fragments
            let from = fragments.isEmpty ? "" : " with \(fragments.joined(separator: ", "))"
            say(
                "\(loaded.file)\(from): valid (\(Plural.count(created.count, "probe")), \(Plural.count(loaded.config.sinks.count, "sink"))); "
                    + "limits: \(ConfigBounds.summary); \(checkedAs)")
        }

        /// One line of the verdict, on the command's own output (AgentOutput).
        private func say(_ line: String) { AgentOutput.write(line + "\n") }
    }
}
