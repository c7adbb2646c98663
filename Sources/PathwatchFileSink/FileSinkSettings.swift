import PathwatchAgent

/// The `file` sink's settings (SPEC §5).
public struct FileSinkSettings: SinkSettings, Decodable, Equatable {
    /// What the file holds: the status document, or its metrics for node_exporter's textfile
    /// collector (which reads `*.prom` files replaced atomically, as this sink replaces them).
    public enum Format: String, Sendable, Equatable {
        case json, prometheus
    }

    /// Relative to the config file's folder.
    public var path: String
    public var pretty: Bool = true
    public var format: Format = .json

    enum CodingKeys: String, CodingKey { case path, pretty, format }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        path = try c.decode(String.self, forKey: .path)
        guard !path.isEmpty, !path.hasSuffix("/") else {
            throw DecodingError.dataCorruptedError(forKey: .path, in: c, debugDescription: "expected a file path, found \"\(path)\"")
        }
        if let text = try c.decodeIfPresent(String.self, forKey: .format) {
            guard let format = Format(rawValue: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .format, in: c, debugDescription: "expected \"json\" or \"prometheus\", found \"\(text)\"")
            }
            self.format = format
        }
        if c.contains(.pretty) && format == .prometheus {
            throw DecodingError.dataCorruptedError(forKey: .pretty, in: c, debugDescription: "applies to the \"json\" format only")
        }
        pretty = try c.decodeIfPresent(Bool.self, forKey: .pretty) ?? true
    }
}
