import PathwatchAgent
import PathwatchProbeKit
import PathwatchSinkKit

/// `once`'s output formats.
package enum OnceFormat: String, CaseIterable, Sendable {
    case json, text, nagios
}

/// What `once` does, however its options were parsed.
package enum OnceCommand {
    /// Samples every probe once, prints the document in `format` and ends the process with the
    /// state's status (Nagios convention), or the configuration error's.
    package static func execute(options: PlainCommonOptions, format: OnceFormat, sinks: SinkRegistry) -> Never {
        // Before any plug-in is loaded: an inline one that prints must not corrupt the output.
        AgentOutput.claim()
        let nagios = format == .nagios
        let loaded = options.loadConfig(sinks: sinks, nagios: nagios)
        let logger = options.makeLogger(redactor: loaded.redactor)
        options.prepareDescriptors(for: loaded, logger: logger)
        let result: StatusSnapshot
        do {
            result = try PathwatchAgent.Once.run(loaded, logger: logger)
        } catch {
            failConfiguration(error, nagios: nagios)
        }
        switch format {
        case .json:
            // The document's bytes as written, with no String made of them to validate again.
            var line = result.prettyJSONBytes()
            line.append(UInt8(ascii: "\n"))
            AgentOutput.write(line)
        case .text: AgentOutput.write(TextFormat.table(result) + "\n")
        case .nagios: AgentOutput.write(NagiosFormat.line(result) + "\n")
        }
        exitProcess(result.state.rawValue)
    }
}
