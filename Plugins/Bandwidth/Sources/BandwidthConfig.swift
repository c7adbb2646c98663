import PathwatchJSON
import PathwatchProbeKit

/// The `bandwidth` probe's configuration. Every key is optional; see the plug-in README for the
/// meaning and default of each. Semantic errors (a negative threshold, warn above crit) are
/// decoding errors carrying the JSON path of the offending value.
package struct BandwidthConfig: Decodable, Sendable {
    /// Interfaces to report, as globs; an interface is reported when it matches one of these
    /// and none of `ignore`.
    package var interfaces: [Glob] = [Glob("*")]
    package var ignore: [Glob] = [Glob("lo")]
    package var speed: SpeedSetting = .kernel
    package var thresholds = Thresholds()
    package var source: SourceChoice = .auto
    /// Where the procfs fallback reads counters (a fixture in tests).
    package var procfsPath = "/proc/net/dev"
    /// Where link speeds (`<sysfs_path>/<ifname>/speed`) and, for procfs, ifindexes are read.
    package var sysfsPath = "/sys/class/net"

    package init() {}

    enum CodingKeys: String, CodingKey {
        case interfaces, ignore, speed, source
        case warnUtilPct = "warn_util_pct"
        case critUtilPct = "crit_util_pct"
        case warnErrorsPs = "warn_errors_ps"
        case critErrorsPs = "crit_errors_ps"
        case warnDroppedPs = "warn_dropped_ps"
        case critDroppedPs = "crit_dropped_ps"
        case procfsPath = "procfs_path"
        case sysfsPath = "sysfs_path"
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        interfaces = try Self.patterns(c, .interfaces) ?? interfaces
        ignore = try Self.patterns(c, .ignore, allowEmpty: true) ?? ignore
        if let raw = try c.decodeIfPresent(JSONValue.self, forKey: .speed) {
            speed = try SpeedSetting(raw, codingPath: c.codingPath + [CodingKeys.speed])
        }
        source = try c.decodeIfPresent(SourceChoice.self, forKey: .source) ?? source
        procfsPath = try Self.path(c, .procfsPath) ?? procfsPath
        sysfsPath = try Self.path(c, .sysfsPath) ?? sysfsPath

        let defaults = Thresholds()
        thresholds = Thresholds(
            utilisation: try Self.pair(c, .warnUtilPct, .critUtilPct, defaults: defaults.utilisation),
            errors: try Self.pair(c, .warnErrorsPs, .critErrorsPs, defaults: defaults.errors),
            dropped: try Self.pair(c, .warnDroppedPs, .critDroppedPs, defaults: defaults.dropped))
    }

    static func invalid(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, _ message: String) -> DecodingError
    {
        .dataCorrupted(.init(codingPath: c.codingPath + [key], debugDescription: message))
    }

    static func patterns(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, allowEmpty: Bool = false) throws
        -> [Glob]?
    {
        guard let globs = try c.decodeIfPresent([Glob].self, forKey: key) else { return nil }
        if globs.isEmpty, !allowEmpty {
            throw invalid(c, key, "expected at least one interface pattern (use [\"*\"] for all)")
        }
        if let empty = globs.firstIndex(where: { $0.pattern.isEmpty }) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath + [key, IndexKey(empty)], debugDescription: "expected a non-empty pattern")
            )
        }
        return globs
    }

    static func path(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> String? {
        guard let path = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard path.hasPrefix("/") else { throw invalid(c, key, "expected an absolute path, found \"\(path)\"") }
        return path
    }

    /// A warn/crit pair: absent keys keep their default, `null` switches that level off, and
    /// when both are set warn must not exceed crit.
    static func pair(
        _ c: KeyedDecodingContainer<CodingKeys>, _ warnKey: CodingKeys, _ critKey: CodingKeys,
        defaults: ThresholdPair
    ) throws -> ThresholdPair {
        func level(_ key: CodingKeys, _ fallback: Double?) throws -> Double? {
            guard c.contains(key) else { return fallback }
            if try c.decodeNil(forKey: key) { return nil }
            let value = try c.decode(Double.self, forKey: key)
            guard value.isFinite, value > 0 else {
                throw invalid(
                    c, key,
                    "expected a number above 0 (or null to disable), found \(JSONSerializer.formatNumber(value))")
            }
            return value
        }
        let pair = ThresholdPair(warn: try level(warnKey, defaults.warn), crit: try level(critKey, defaults.crit))
        if let warn = pair.warn, let crit = pair.crit, warn > crit {
            let key = c.contains(critKey) ? critKey : warnKey
            throw invalid(
                c, key,
                "\(warnKey.rawValue) (\(JSONSerializer.formatNumber(warn))) must not be above \(critKey.rawValue) (\(JSONSerializer.formatNumber(crit)))"
            )
        }
        return pair
    }
}

/// Where counters come from.
package enum SourceChoice: String, Decodable, Sendable {
    /// Netlink, or /proc/net/dev when a netlink socket cannot be opened.
    case auto
    case netlink
    case procfs

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let choice = SourceChoice(rawValue: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "expected \"auto\", \"netlink\" or \"procfs\", found \"\(text)\""))
        }
        self = choice
    }
}

/// A coding key for an array element or an object member named at run time, so errors inside
/// lists and pattern objects carry their exact JSON path.
struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ index: Int) {
        stringValue = "\(index)"
        intValue = index
    }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.init(intValue) }
}
