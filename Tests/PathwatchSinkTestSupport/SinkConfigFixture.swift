import PathwatchHTTPSink
import PathwatchSinks
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// A configuration of a stdout sink and the sink under test, so that the sink's JSON path is
/// `sinks[1]`, loaded with the sink kinds as the agent's executable reads them (the http sink's
/// with its server, which reads its certificates); for the sink kinds' configuration suites.
enum SinkConfigFixture {
    static let kinds = SinkRegistry.standard.replacing(.httpServer)

    static func load(_ sink: String) throws(ConfigError) -> LoadedConfig {
        try ConfigLoader.load(
            text: #"{"sinks": [{"type": "stdout"}, \#(sink)]}"#, file: "/etc/pw/config.json", sinks: kinds)
    }

    /// The error loading `sink` ends in; nil, recorded as an issue, when it is accepted.
    static func refusal(_ sink: String, sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
        do {
            _ = try load(sink)
            Issue.record("accepted: \(sink)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }
}
