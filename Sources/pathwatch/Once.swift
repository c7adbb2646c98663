import ArgumentParser
import PathwatchAgent
import PathwatchProbeKit

extension Pathwatch {
    struct Once: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "once",
            abstract: "Sample every probe once and print the status document; exit 0 ok, 1 warning, 2 critical, 3 unknown.")

        @OptionGroup var options: CommonOptions

        @Option(help: "Output format: json (the status document), text (a table for people) or nagios (one Nagios/Icinga plug-in line with performance data; a configuration error is then UNKNOWN, exit 3).")
        var format: OnceFormat = .json

        func run() throws {
            Self.execute(options: options, format: format)
        }

        /// What `once` does, given its options however they were parsed: prints the document
        /// in `format` and ends the process with the state's status (or the configuration
        /// error's).
        static func execute(options: some CommonSettings, format: OnceFormat) -> Never {
            do {
                try sampleAndPrint(options: options, format: format)
            } catch let code as ExitCode {
                exitProcess(code.rawValue)
            } catch {
                Pathwatch.exit(withError: error)
            }
        }

        private static func sampleAndPrint(options: some CommonSettings, format: OnceFormat) throws -> Never {
            let nagios = format == .nagios
            let loaded = try options.loadConfig(nagios: nagios)
            let logger = options.makeLogger(redactor: loaded.redactor)
            options.prepareDescriptors(for: loaded, logger: logger)
            let result: (document: JSONValue, state: CheckState)
            do {
                result = try PathwatchAgent.Once.run(loaded, logger: logger)
            } catch {
                try failConfiguration(error, nagios: nagios)
            }
            switch format {
            case .json: print(JSONSerializer.serialize(result.document, pretty: true))
            case .text: print(TextFormat.table(result.document))
            case .nagios: print(NagiosFormat.line(result.document))
            }
            // Nagios convention: the state's value is the exit status.
            throw ExitCode(result.state.rawValue)
        }
    }

    enum OnceFormat: String, ExpressibleByArgument, CaseIterable {
        case json, text, nagios
    }
}
