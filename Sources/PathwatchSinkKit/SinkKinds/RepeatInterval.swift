import PathwatchJSON

/// contract §2: anything that repeats faster than this would spin the host (an interval of "1ns"
/// took 14 s of CPU in 10 s and flapped thousands of times).
package let minimumRepeatInterval = ConfigDuration.milliseconds(100)

package func requireInterval<K: CodingKey>(_ d: ConfigDuration, key: K, in c: ConfigObject<K>) throws {
    guard d >= minimumRepeatInterval else {
        throw DecodingError.dataCorruptedError(
            forKey: key, in: c, debugDescription: "expected at least \(minimumRepeatInterval), found \"\(d)\"")
    }
}
