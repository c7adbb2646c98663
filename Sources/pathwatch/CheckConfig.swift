import ArgumentParser
import PathwatchAgent

extension Pathwatch {
    struct CheckConfig: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-config",
            abstract: "Validate the configuration and every plug-in it names, without running probes; exit 0 valid, 78 invalid.")

        @OptionGroup var options: CommonOptions

        func run() throws {
            let loaded = try options.loadConfig()
            let catalog = PluginCatalog.discover(in: loaded.pluginDirectories)
            let created: [ProbeSetup.Created]
            do {
                created = try ProbeSetup.instantiate(loaded, catalog: catalog)
            } catch {
                printError("configuration error: \(error)")
                throw ExitStatus.configError
            }
            created.forEach { $0.instance.destroy() }
            for refusal in catalog.refused { print("note: plug-in refused: \(refusal)") }
            DescriptorLimit.raiseSoftToHard()
            if let shortage = DescriptorLimit.shortage(for: loaded.config) { print("warning: \(shortage)") }
            let fragments = loaded.origins.fragments
            let from = fragments.isEmpty ? "" : " with \(fragments.joined(separator: ", "))"
            print("\(loaded.file)\(from): valid (\(created.count) probes, \(loaded.config.sinks.count) sinks)")
        }
    }
}
