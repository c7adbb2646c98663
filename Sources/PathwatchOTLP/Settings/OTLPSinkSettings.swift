import PathwatchHTTPOut
import PathwatchJSON
import PathwatchRemoteWrite
import PathwatchSinkKit

/// The settings of one `otlp` sink, decoded strictly with JSON paths in every error. The same
/// delivery keys as `remote_write` (its queue, `max_age`, `max_bytes`, retries, TLS and
/// authentication), the OTLP ones besides: `encoding`, `compression`, `resource_attributes`.
/// `url`, header values, `bearer_token`, `basic_auth` and attribute values may hold secrets
/// substituted from `${env:…}`/`${file:…}`: no error message here repeats one of them.
package struct OTLPSinkSettings: SinkMaking, Decodable, Equatable {
    /// The OpenTelemetry Collector's exporters' own default batch (`send_batch_size` 8192) is
    /// larger; 2,000 keeps a request near remote write's, which every receiver takes.
    package static let defaultMaxPointsPerSend = 2000

    /// How a request's body is written (OTLP/HTTP: `application/x-protobuf` or `application/json`).
    package enum Encoding: String, Sendable, Equatable, CaseIterable {
        case protobuf, json

        var contentType: String { self == .protobuf ? "application/x-protobuf" : "application/json" }
    }

    /// How a request's body is compressed.
    package enum Compression: String, Sendable, Equatable, CaseIterable {
        case gzip, none
    }

    /// The full URL of the metrics endpoint (the Collector's `…:4318/v1/metrics`): sent to as given.
    package var url: String
    /// `Name: value` lines: the configured headers, then `Authorization`.
    package var headers: [String] = []
    package var encoding = Encoding.protobuf
    /// gzip by default, as OpenTelemetry's own exporters send.
    package var compression = Compression.gzip
    /// Added to (or replacing) the agent's resource (`AgentResource`), in key order.
    package var resourceAttributes: [(key: String, value: String)] { resourceAttributeList.map { ($0.key, $0.value) } }
    var resourceAttributeList: [OTLPAttribute] = []
    package var maxAge = RemoteWriteSinkSettings.defaultMaxAge
    package var maxBytes = RemoteWriteSinkSettings.defaultMaxBytes
    package var maxPointsPerSend = Self.defaultMaxPointsPerSend
    package var timeout = ConfigDuration.seconds(30)
    package var tls = HTTPTLS()
    package var retry = RetrySettings(initial: .seconds(1), max: .seconds(60))
    /// Every secret value this sink holds, for the redactor.
    var secretValues: [String] = []

    /// Headers the sink sets itself; the configuration may not replace them.
    static let reservedHeaders: Set<String> = ["content-type", "content-encoding", "content-length", "host", "expect"]

    enum CodingKeys: String, CodingKey, QueuedPushKeys {
        case url, headers, encoding, compression, timeout, tls, retry
        case bearerToken = "bearer_token"
        case basicAuth = "basic_auth"
        case resourceAttributes = "resource_attributes"
        case maxAge = "max_age"
        case maxBytes = "max_bytes"
        case maxPointsPerSend = "max_points_per_send"
    }

    package init(url: String) { self.url = url }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        let push = try QueuedPushSettings(from: c, reserved: Self.reservedHeaders)
        (url, headers, secretValues) = (push.url, push.headers, push.secretValues)
        (maxAge, maxBytes, timeout, tls, retry) = (push.maxAge, push.maxBytes, push.timeout, push.tls, push.retry)
        encoding = try Self.choice(.encoding, in: c) ?? encoding
        compression = try Self.choice(.compression, in: c) ?? compression
        resourceAttributeList = try ResourceAttributes.decode(c)
        maxPointsPerSend = try c.decodeIfPresent(Int.self, forKey: .maxPointsPerSend) ?? maxPointsPerSend
        guard (1...1_000_000).contains(maxPointsPerSend) else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxPointsPerSend, in: c,
                debugDescription: "expected from 1 to 1000000 data points, found \(maxPointsPerSend)")
        }
    }

    private static func choice<Value: RawRepresentable & CaseIterable>(
        _ key: CodingKeys, in c: ConfigObject<CodingKeys>
    ) throws -> Value? where Value.RawValue == String {
        guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let value = Value(rawValue: text) else {
            let allowed = Value.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c, debugDescription: "expected one of \(allowed), found \"\(text)\"")
        }
        return value
    }

    package static func == (a: Self, b: Self) -> Bool {
        a.url == b.url && a.headers == b.headers && a.encoding == b.encoding && a.compression == b.compression
            && a.resourceAttributeList == b.resourceAttributeList && a.maxAge == b.maxAge && a.maxBytes == b.maxBytes
            && a.maxPointsPerSend == b.maxPointsPerSend && a.timeout == b.timeout && a.tls == b.tls
            && a.retry == b.retry
    }
}
