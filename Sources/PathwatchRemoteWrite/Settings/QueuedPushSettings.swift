import PathwatchHTTPOut
import PathwatchJSON
import PathwatchSinkKit

/// The keys every sink that pushes reports through a durable queue (remote write, OTLP) reads
/// the same way.
package protocol QueuedPushKeys: PushAuthKeys {
    static var url: Self { get }
    static var maxAge: Self { get }
    static var maxBytes: Self { get }
    static var timeout: Self { get }
    static var tls: Self { get }
    static var retry: Self { get }
}

/// Where such a sink posts and how it authenticates (`PushAuth`), how long and how much its
/// queue keeps, how long one request may take, TLS and backoff: decoded once, with the same
/// bounds and the same words in every error, for each sink that has them.
package struct QueuedPushSettings {
    package var url: String
    /// `Name: value` lines: the configured headers, then `Authorization`.
    package var headers: [String] = []
    package var secretValues: [String] = []
    package var maxAge = RemoteWriteSinkSettings.defaultMaxAge
    package var maxBytes = RemoteWriteSinkSettings.defaultMaxBytes
    package var timeout = ConfigDuration.seconds(30)
    package var tls = HTTPTLS()
    package var retry = RetrySettings(initial: .seconds(1), max: .seconds(60))

    /// `reserved`: the headers the sink sets itself.
    package init<Keys: QueuedPushKeys>(from c: ConfigObject<Keys>, reserved: Set<String>) throws {
        url = try c.decode(String.self, forKey: .url)
        if let problem = HTTPTarget.problem(with: url) {
            throw DecodingError.dataCorruptedError(forKey: .url, in: c, debugDescription: problem)
        }
        let auth = try PushAuth(from: c, reserved: reserved)
        headers = auth.headerLines
        secretValues = auth.secretValues
        maxAge = try c.decodeIfPresent(ConfigDuration.self, forKey: .maxAge) ?? maxAge
        guard maxAge.nanoseconds >= 1_000_000_000 else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxAge, in: c, debugDescription: "expected at least 1s, found \"\(maxAge)\"")
        }
        maxBytes = try c.decodeIfPresent(ByteSize.self, forKey: .maxBytes) ?? maxBytes
        guard maxBytes.bytes >= 64 * 1024 else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxBytes, in: c, debugDescription: "expected at least 64KiB, found \(maxBytes)")
        }
        timeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .timeout) ?? timeout
        guard timeout.nanoseconds >= 1_000_000 else {
            throw DecodingError.dataCorruptedError(
                forKey: .timeout, in: c, debugDescription: "expected at least 1ms, found \"\(timeout)\"")
        }
        tls = try c.decodeIfPresent(HTTPTLS.self, forKey: .tls) ?? HTTPTLS()
        retry = try retry.reading(.retry, in: c)
    }
}
