import PathwatchHTTPOut
import PathwatchJSON
import PathwatchSinkKit

/// The settings of one `remote_write` sink, decoded strictly with JSON paths in every error.
/// `url`, header values, `bearer_token` and `basic_auth` may hold secrets substituted from
/// `${env:…}`/`${file:…}`: no error message here repeats one of them.
package struct RemoteWriteSinkSettings: SinkMaking, Decodable, Equatable {
    /// A day: a laptop closed overnight, a site's uplink down for a day, still arrive.
    package static let defaultMaxAge = ConfigDuration.seconds(86_400)
    /// About 3 days of 500 series every 10 s as the queue keeps them (4 to 5 bytes a sample,
    /// see the README's Capacity): the default `max_age` of a busy host fits.
    package static let defaultMaxBytes = ByteSize(bytes: 64 << 20)
    /// Prometheus's own `queue_config.max_samples_per_send` default.
    package static let defaultMaxSamplesPerSend = 2000
    /// One request at a time: a receiver sees at most one request in flight per agent.
    package static let defaultMaxParallel = 1
    /// Prometheus's own `max_shards` default is 50; a single host's backlog needs a few.
    static let maxParallelLimit = 16

    package var url: String
    /// `Name: value` lines: the configured headers, then `Authorization` from `bearer_token` or
    /// `basic_auth`.
    package var headers: [String] = []
    package var externalLabels: [(String, String)] { externalLabelList.map { ($0.name, $0.value) } }
    var externalLabelList: [Label] = []
    package var maxAge = Self.defaultMaxAge
    package var maxBytes = Self.defaultMaxBytes
    package var maxSamplesPerSend = Self.defaultMaxSamplesPerSend
    /// Requests in flight at once while a backlog drains, each a share of the same reports' series.
    package var maxParallel = Self.defaultMaxParallel
    package var timeout = ConfigDuration.seconds(30)
    package var tls = HTTPTLS()
    package var retry = RetrySettings(initial: .seconds(1), max: .seconds(60))
    package var replay = Replay.oldestFirst
    /// Every secret value this sink holds, for the redactor.
    var secretValues: [String] = []

    /// The order a backlog is sent in.
    package enum Replay: String, Sendable, Equatable, CaseIterable {
        /// Oldest first: every receiver takes it (Prometheus without an out-of-order window too).
        case oldestFirst = "oldest_first"
        /// Each new report at once, the backlog behind it: for a receiver that takes samples
        /// older than its newest (`docs/remote-write-backfill.md`).
        case liveFirst = "live_first"
    }

    struct Label: Equatable, Sendable {
        var name: String
        var value: String
    }

    /// Headers the sink sets itself; the configuration may not replace them.
    static let reservedHeaders: Set<String> = [
        "content-type", "content-encoding", "content-length", "host", "x-prometheus-remote-write-version", "expect",
    ]

    enum CodingKeys: String, CodingKey, QueuedPushKeys {
        case url, headers, timeout, tls, retry, replay
        case bearerToken = "bearer_token"
        case basicAuth = "basic_auth"
        case externalLabels = "external_labels"
        case maxAge = "max_age"
        case maxBytes = "max_bytes"
        case maxSamplesPerSend = "max_samples_per_send"
        case maxParallel = "max_parallel"
    }

    package init(url: String) { self.url = url }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        let push = try QueuedPushSettings(from: c, reserved: Self.reservedHeaders)
        (url, headers, secretValues) = (push.url, push.headers, push.secretValues)
        (maxAge, maxBytes, timeout, tls, retry) = (push.maxAge, push.maxBytes, push.timeout, push.tls, push.retry)
        externalLabelList = try ExternalLabels.decode(c)
        maxSamplesPerSend = try c.decodeIfPresent(Int.self, forKey: .maxSamplesPerSend) ?? maxSamplesPerSend
        guard (1...1_000_000).contains(maxSamplesPerSend) else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxSamplesPerSend, in: c,
                debugDescription: "expected from 1 to 1000000 samples, found \(maxSamplesPerSend)")
        }
        maxParallel = try c.decodeIfPresent(Int.self, forKey: .maxParallel) ?? maxParallel
        guard (1...Self.maxParallelLimit).contains(maxParallel) else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxParallel, in: c,
                debugDescription: "expected from 1 to \(Self.maxParallelLimit) requests, found \(maxParallel)")
        }
        if let text = try c.decodeIfPresent(String.self, forKey: .replay) {
            guard let value = Replay(rawValue: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .replay, in: c,
                    debugDescription:
                        "expected one of \(Replay.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), found \"\(text)\""
                )
            }
            replay = value
        }
    }

    /// What `check-config` says of this sink beside its verdict.
    package var checkNotes: [String] {
        guard replay == .liveFirst else { return [] }
        return [
            "replay \"live_first\" sends each new report before the backlog: the receiver must take samples older than its newest (Prometheus and Mimir: out_of_order_time_window), or it refuses the backlog (docs/remote-write-backfill.md)"
        ]
    }

    package static func == (a: Self, b: Self) -> Bool {
        a.url == b.url && a.headers == b.headers && a.externalLabelList == b.externalLabelList && a.maxAge == b.maxAge
            && a.maxBytes == b.maxBytes && a.maxSamplesPerSend == b.maxSamplesPerSend
            && a.maxParallel == b.maxParallel && a.timeout == b.timeout
            && a.tls == b.tls
            && a.retry == b.retry && a.replay == b.replay
    }
}

/// A coding key for objects whose keys are data (header and label names).
struct NameKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
