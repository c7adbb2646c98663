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
                print("warning: probe \(c.config.id): \(loaded.redactor.redact(c.instance.health.lastError ?? "not running"))")
            }
            created.forEach { $0.instance.destroy() }
            // A refusal names its file, whose folder may be a substituted secret.
            for refusal in catalog.refused { print("note: plug-in refused: \(loaded.redactor.redact(refusal.description))") }
            DescriptorLimit.raiseSoftToHard()
            if let shortage = DescriptorLimit.shortage(for: loaded.config) { print("warning: \(shortage)") }
            let fragments = loaded.origins.fragments
            let from = fragments.isEmpty ? "" : " with \(fragments.joined(separator: ", "))"
            print(
                "\(loaded.file)\(from): valid (\(created.count) probes, \(loaded.config.sinks.count) sinks); "
                    + "limits: \(ConfigLoader.maxProbes) probes, max_observations per probe up to 100000")
        }
    }
}
