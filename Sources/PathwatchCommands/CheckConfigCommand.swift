import Glibc
import PathwatchAgent
import PathwatchSinkKit

/// What `check-config` does, however its options were parsed. It runs in the agent's executable,
/// with the sink kinds the agent runs: a configuration is checked as the agent will read it (the
/// http sink's certificates and key included), and as the service's user too when root asks.
package enum CheckConfigCommand {
    /// Checks the configuration and every plug-in it names without running probes, prints the
    /// verdict and ends the process: 0 valid, 78 invalid, 1 when the check itself failed.
    package static func execute(options: PlainCommonOptions, sinks: SinkRegistry) -> Never {
        // The verdict keeps a descriptor of its own, as the agent's output does.
        AgentOutput.claim()
        let loaded = options.loadConfig(sinks: sinks)
        let logger = options.makeLogger(redactor: loaded.redactor)
        let checked: ProbeCreationCheck.Outcome
        do {
            checked = try ProbeCreationCheck.createEveryProbe(loaded, logger: logger)
        } catch {
            for refusal in error.errors { printError("configuration error: \(refusal)") }
            exitProcess(ExitStatus.configError)
        }
        // A refusal names its file, whose folder may be a substituted secret.
        for refusal in checked.catalog.refused {
            say("note: plug-in refused: \(loaded.redactor.redact(refusal.description))")
        }
        for (index, sink) in loaded.config.sinks.enumerated() {
            for note in sink.settings.checkNotes { say("note: sinks[\(index)] (\(sink.type)): \(note)") }
        }
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
            exitProcess(status == ExitStatus.configError ? ExitStatus.configError : ExitStatus.failure)
        }
        let fragments = loaded.origins.fragments
        let from = fragments.isEmpty ? "" : " with \(fragments.joined(separator: ", "))"
        say(
            "\(loaded.file)\(from): valid (\(Plural.count(checked.probes, "probe")), \(Plural.count(loaded.config.sinks.count, "sink"))); "
                + "limits: \(ConfigBounds.summary); \(checkedAs)")
        exitProcess(0)
    }

    /// One line of the verdict, on the command's own output (AgentOutput).
    private static func say(_ line: String) { AgentOutput.write(line + "\n") }
}
