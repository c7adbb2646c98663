import PathwatchAgent

/// How the stdout sink writes: lines for people, or one JSON object per line.
public enum OutputFormat: String, Sendable, Decodable {
    case text
    case json
}

/// The `stdout` sink's settings (contract §5).
public struct StdoutSinkSettings: SinkSettings, Decodable, Equatable {
    public var format: OutputFormat = .text

    enum CodingKeys: String, CodingKey { case format }

    public init(format: OutputFormat = .text) { self.format = format }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let text = try c.decodeIfPresent(String.self, forKey: .format) {
            guard let format = OutputFormat(rawValue: text) else {
                throw DecodingError.dataCorruptedError(forKey: .format, in: c, debugDescription: "expected \"text\" or \"json\", found \"\(text)\"")
            }
            self.format = format
        }
    }
}

extension StdoutSinkSettings {
    public func makeSink(_ context: SinkContext) -> any Sink {
        StdoutSink(format: format, triggers: context.triggers)
    }
}

extension SinkKind {
    /// Lines on the agent's standard output; on changes unless told otherwise.
    public static let stdout = SinkKind(type: "stdout", settings: StdoutSinkSettings.self, triggers: .configurable(default: [.change]))
}
