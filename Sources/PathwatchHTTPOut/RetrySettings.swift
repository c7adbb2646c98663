import PathwatchJSON
import PathwatchSinkKit

/// A pushing sink's `retry` setting: the backoff's first step and its ceiling (RetryPolicy).
/// Each sink starts from its own defaults; the configuration's `retry` object replaces what it
/// names.
package struct RetrySettings: Sendable, Equatable {
    package var initial: ConfigDuration
    package var max: ConfigDuration

    enum CodingKeys: String, CodingKey { case initial, max }

    package init(initial: ConfigDuration, max: ConfigDuration) {
        self.initial = initial
        self.max = max
    }

    /// These settings with the `retry` object under `key` of `container` read over them; the same
    /// when there is none. A step under 1 ms, or a ceiling below the first step, is refused with
    /// its path.
    package func reading<K: CodingKey>(_ key: K, in container: ConfigObject<K>) throws -> RetrySettings {
        guard container.contains(key) else { return self }
        let c = try container.nestedContainer(keyedBy: CodingKeys.self, forKey: key)
        var read = self
        read.initial = try c.decodeIfPresent(ConfigDuration.self, forKey: .initial) ?? initial
        try requireInterval(read.initial, key: .initial, in: c)
        read.max = try c.decodeIfPresent(ConfigDuration.self, forKey: .max) ?? max
        guard read.max >= read.initial else {
            throw DecodingError.dataCorruptedError(
                forKey: .max, in: c,
                debugDescription: "expected at least retry.initial (\(read.initial)), found \"\(read.max)\"")
        }
        return read
    }

    /// The delivery loop's policy for these settings.
    package var policy: RetryPolicy { RetryPolicy(initial: initial.seconds, max: max.seconds) }
}
