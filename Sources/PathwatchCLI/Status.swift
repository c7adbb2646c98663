import ArgumentParser
import Glibc
import PathwatchAgent
import PathwatchCommands
import PathwatchHTTPSinkSettings
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit

extension Pathwatch {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract:
                "Ask the running agent (through its http sink) for its status document: live values, not a fresh sample; exit 0 ok, 1 warning, 2 critical, 3 unknown or no answer."
        )

        @OptionGroup var options: CommonOptions

        @Option(help: "The agent's base URL or its /status URL (default: the configuration's http sink).")
        var url: String?

        @Option(
            help:
                "Output format: text (a table for people), json (the status document) or nagios (one Nagios/Icinga line)."
        )
        var format: OnceFormat = .text

        @Option(help: "Seconds to wait for the answer.")
        var timeout: Double = 5

        func run() throws {
            let nagios = format == .nagios
            let target = try endpoint(nagios: nagios)
            switch LiveStatusClient.fetch(target, timeoutSeconds: timeout) {
            case .failure(let failure):
                printError(failure.description)
                if nagios { print(NagiosFormat.unknown(failure.description)) }
                throw ExitCode(NagiosFormat.unknownExit)
            case .success(let document):
                switch format {
                case .json: print(JSONSerializer.serialize(document, pretty: true))
                case .text: print(TextFormat.table(StatusSnapshot(received: document)))
                case .nagios: print(NagiosFormat.line(StatusSnapshot(received: document)))
                }
                let state = CheckState.allCases.first { $0.name == document["state"]?.stringValue } ?? .unknown
                throw ExitCode(state.rawValue)
            }
        }

        /// `--url` as given (a base URL gets `/status`), with the configuration's credentials when
        /// the file names the same agent; else the configuration's http sink. Only that sink is
        /// read (`LiveEndpointConfig`): the shell asking may lack the service's other secrets.
        /// A basic-auth password comes from PATHWATCH_PASSWORD, never the command line.
        private func endpoint(nagios: Bool) throws -> LiveStatusClient.Endpoint {
            let file = options.configFile
            let environment =
                getenv(LiveStatusClient.passwordVariable).map {
                    [LiveStatusClient.passwordVariable: String(cString: $0)]
                } ?? [:]
            if let url {
                let target = url.hasSuffix("/status") ? url : (url.hasSuffix("/") ? url + "status" : url + "/status")
                let configured = (try? LiveEndpointConfig.firstHTTPSink(file: file)).flatMap {
                    $0.map { LiveStatusClient.endpoint(of: $0, environment: environment) }
                }
                if let configured, configured.url == target { return configured }
                return LiveStatusClient.Endpoint(url: target)
            }
            let settings: HTTPSinkSettings?
            do {
                settings = try LiveEndpointConfig.firstHTTPSink(file: file)
            } catch {
                failConfiguration(error, nagios: nagios)
            }
            guard let settings else { failConfiguration(NoLiveSink(file: file), nagios: nagios) }
            return LiveStatusClient.endpoint(of: settings, environment: environment)
        }
    }
}

/// `status` needs an agent serving HTTP to ask.
struct NoLiveSink: Error, CustomStringConvertible {
    var file: String
    var description: String {
        "\(file): no http sink to ask; add one ({\"type\": \"http\", \"listen\": \"127.0.0.1:8470\"}) or pass --url"
    }
}
