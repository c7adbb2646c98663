import PathwatchAgent
import PathwatchProbeKit

/// `once`'s output formats.
public enum OnceFormat: String, CaseIterable, Sendable {
    case json, text, nagios
}

/// What `once` does, however its options were parsed.
public enum OnceCommand {
    /// Samples every probe once, prints the document in `format` and ends the process with the
    /// state's status (Nagios convention), or the configuration error's.
    public static func execute(options: PlainCommonOptions, format: OnceFormat) -> Never {
        let nagios = format == .nagios
        let loaded = options.loadConfig(nagios: nagios)
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
            FileDescriptorWriter.writeAll(STDOUT_FILENO, line)
        case .text: print(TextFormat.table(result.document))
        case .nagios: print(NagiosFormat.line(result.document))
        }
        exitProcess(result.state.rawValue)
    }
}
