import PathwatchJSON
import PathwatchProbeKit

/// The link speed utilisation is measured against, in Mb/s.
///
/// Configured as one number for every reported interface (`"speed": 1000`), or an object of
/// interface globs to numbers (`"speed": {"eth0": 1000, "wwan*": 50}`) where the first matching
/// pattern, in the order written, wins. A configured speed overrides the kernel's; interfaces
/// without one use `/sys/class/net/<if>/speed` when the kernel reports a positive value.
package enum SpeedSetting: Sendable, Equatable {
    case kernel
    case everywhere(megabitsPerSecond: Double)
    case byPattern([(pattern: Glob, megabitsPerSecond: Double)])

    /// The configured speed of `interface` in Mb/s, or nil to ask the kernel.
    package func configured(for interface: String) -> Double? {
        switch self {
        case .kernel: nil
        case .everywhere(let speed): speed
        case .byPattern(let entries): entries.first { $0.pattern.matches(interface) }?.megabitsPerSecond
        }
    }

    init(_ raw: JSONValue, codingPath: [any CodingKey]) throws {
        func positive(_ value: JSONValue, _ path: [any CodingKey]) throws -> Double {
            guard let number = value.numberValue, number.isFinite, number > 0 else {
                let found = value.numberValue.map { JSONSerializer.formatNumber($0) } ?? value.kindName
                throw DecodingError.dataCorrupted(
                    .init(codingPath: path, debugDescription: "expected a link speed in Mb/s above 0, found \(found)"))
            }
            return number
        }
        switch raw {
        case .number, .largeInteger:
            self = .everywhere(megabitsPerSecond: try positive(raw, codingPath))
        case .object(let object):
            var entries: [(pattern: Glob, megabitsPerSecond: Double)] = []
            for (pattern, value) in object.members {
                let path = codingPath + [IndexKey(stringValue: pattern)]
                if pattern.isEmpty {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: path, debugDescription: "expected a non-empty interface pattern"))
                }
                entries.append((Glob(pattern), try positive(value, path)))
            }
            self = .byPattern(entries)
        default:
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription:
                        "expected a speed in Mb/s or an object of interface patterns to Mb/s, found \(raw.kindName)"))
        }
    }

    package static func == (a: SpeedSetting, b: SpeedSetting) -> Bool {
        switch (a, b) {
        case (.kernel, .kernel): true
        case (.everywhere(let x), .everywhere(let y)): x == y
        case (.byPattern(let x), .byPattern(let y)):
            x.count == y.count
                && zip(x, y).allSatisfy { $0.pattern == $1.pattern && $0.megabitsPerSecond == $1.megabitsPerSecond }
        default: false
        }
    }
}
