import PathwatchSinkKit

/// How the stdout sink writes: lines for people, or one JSON object per line.
package enum OutputFormat: String, Sendable, Decodable {
    case text
    case json
}

/// The `stdout` sink's settings (contract §5).
package struct StdoutSinkSettings: SinkMaking, Decodable, Equatable {
    package var format: OutputFormat = .text

    enum CodingKeys: String, CodingKey { case format }

    package init(format: OutputFormat = .text) { self.format = format }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        if let text = try c.decodeIfPresent(String.self, forKey: .format) {
            guard let format = OutputFormat(rawValue: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .format, in: c, debugDescription: "expected \"text\" or \"json\", found \"\(text)\"")
            }
            self.format = format
        }
    }
}

extension StdoutSinkSettings {
    package func makeSink(_ context: SinkContext) -> any Sink {
        SinkRunner(StdoutSink(format: format, triggers: context.triggers), clock: context.clock)
    }
}

extension SinkKind {
    /// Lines on the agent's standard output; on changes unless told otherwise.
    package static let stdout = SinkKind(
        type: "stdout", settings: StdoutSinkSettings.self, triggers: .configurable(default: [.change]))
}
