import ArgumentParser
import PathwatchAgent
import PathwatchProbeKit

extension Pathwatch {
    struct Once: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sample every probe once and print the status document; exit 0 ok, 1 warning, 2 critical, 3 unknown.")

        @OptionGroup var options: CommonOptions

        @Option(help: "Output format: json (the status document) or text (a table for people).")
        var format: OnceFormat = .json

        func run() throws {
            let loaded = try options.loadConfig()
            let logger = options.makeLogger(redactor: loaded.redactor)
            options.prepareDescriptors(for: loaded, logger: logger)
            let result: (document: JSONValue, state: CheckState)
            do {
                result = try PathwatchAgent.Once.run(loaded, logger: logger)
            } catch {
                printError("configuration error: \(error)")
                throw ExitStatus.configError
            }
            switch format {
            case .json: print(JSONSerializer.serialize(result.document, pretty: true))
            case .text: print(TextFormat.table(result.document))
            }
            // Nagios convention: the state's value is the exit status.
            throw ExitCode(result.state.rawValue)
        }
    }

    enum OnceFormat: String, ExpressibleByArgument, CaseIterable {
        case json, text
    }
}
