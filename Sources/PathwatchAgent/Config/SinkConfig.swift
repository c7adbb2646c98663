/// When a sink receives something: on a check's change, on every sample, or both.
public enum SinkTrigger: String, Sendable, Hashable, Decodable, CaseIterable {
    case change
    case every
}

/// One entry of `sinks`: its kind with that kind's settings, and its triggers.
public struct SinkConfig: Sendable, Decodable, Equatable {
    public enum Kind: Sendable, Equatable {
        case stdout(StdoutSinkSettings)
        case file(FileSinkSettings)
        case webhook(WebhookSinkSettings)
        case http(HTTPSinkSettings)
    }

    public var kind: Kind
    public var on: Set<SinkTrigger>

    enum CodingKeys: String, CodingKey { case type, on }

    public init(kind: Kind, on: Set<SinkTrigger>) {
        self.kind = kind
        self.on = on
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "stdout":
            kind = .stdout(try StdoutSinkSettings(from: decoder))
            on = try Self.decodeTriggers(c, default: [.change])
        case "file":
            kind = .file(try FileSinkSettings(from: decoder))
            on = try Self.decodeTriggers(c, default: [.every])
        case "webhook":
            let settings = try WebhookSinkSettings(from: decoder)
            kind = .webhook(settings)
            on = try Self.decodeTriggers(c, default: [.change])
            if on.contains(.every) && settings.format != .pathwatch {
                throw DecodingError.dataCorruptedError(
                    forKey: .on, in: c,
                    debugDescription: "the \"\(settings.format.rawValue)\" format sends changes only; expected \"change\"")
            }
        case "http":
            // It serves what is asked when it is asked: every sample and every change, so it
            // takes no `on` (the strict decoder refuses one).
            kind = .http(try HTTPSinkSettings(from: decoder))
            on = [.change, .every]
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c, debugDescription: "unknown sink type \"\(type)\"; expected one of: stdout, file, webhook, http")
        }
    }

    /// `"change"`, `"every"`, or a list of them.
    static func decodeTriggers(_ c: KeyedDecodingContainer<CodingKeys>, default value: Set<SinkTrigger>) throws -> Set<SinkTrigger> {
        guard c.contains(.on) else { return value }
        let expected = "expected \"change\", \"every\" or a list of them"
        if let one = try? c.decode(String.self, forKey: .on) {
            guard let trigger = SinkTrigger(rawValue: one) else {
                throw DecodingError.dataCorruptedError(forKey: .on, in: c, debugDescription: "\(expected), found \"\(one)\"")
            }
            return [trigger]
        }
        guard let list = try? c.decode([String].self, forKey: .on), !list.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .on, in: c, debugDescription: expected)
        }
        var set = Set<SinkTrigger>()
        for item in list {
            guard let trigger = SinkTrigger(rawValue: item) else {
                throw DecodingError.dataCorruptedError(forKey: .on, in: c, debugDescription: "\(expected), found \"\(item)\"")
            }
            set.insert(trigger)
        }
        return set
    }
}

public enum OutputFormat: String, Sendable, Decodable {
    case text
    case json
}

public struct StdoutSinkSettings: Sendable, Decodable, Equatable {
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

public struct FileSinkSettings: Sendable, Decodable, Equatable {
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
