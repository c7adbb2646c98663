import PathwatchJSON
import PathwatchProbeKit

/// The disk probe's `config` object. Every key is optional; see README.md for the defaults.
struct DiskConfig: Decodable, Sendable {
    /// Which mounts to watch.
    enum Mounts: Sendable, Equatable {
        /// Every filesystem holding storage, as df lists them.
        case all
        /// These mount points, each reported even when nothing is mounted there.
        case listed([String])
    }

    var mounts: Mounts = .all
    var ignore: [Glob] = []
    var expectReadOnly: [Glob] = []
    var warnUsedPercent: Double = 85
    var critUsedPercent: Double = 95
    var minFree: WrittenSize? = nil
    var warnInodesUsedPercent: Double = 85
    var critInodesUsedPercent: Double = 95
    var timeout: ConfigDuration = .seconds(2)

    enum CodingKeys: String, CodingKey, CaseIterable {
        case mounts, ignore
        case expectReadOnly = "expect_readonly"
        case warnUsedPercent = "warn_used_percent"
        case critUsedPercent = "crit_used_percent"
        case minFree = "min_free"
        case warnInodesUsedPercent = "warn_inodes_used_percent"
        case critInodesUsedPercent = "crit_inodes_used_percent"
        case timeout
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if c.contains(.mounts) {
            mounts = try Self.decodeMounts(try c.superDecoder(forKey: .mounts))
        }
        ignore = try c.decodeIfPresent([Glob].self, forKey: .ignore) ?? ignore
        expectReadOnly = try c.decodeIfPresent([Glob].self, forKey: .expectReadOnly) ?? expectReadOnly
        warnUsedPercent = try c.decodeIfPresent(Double.self, forKey: .warnUsedPercent) ?? warnUsedPercent
        critUsedPercent = try c.decodeIfPresent(Double.self, forKey: .critUsedPercent) ?? critUsedPercent
        minFree = try c.decodeIfPresent(WrittenSize.self, forKey: .minFree)
        warnInodesUsedPercent =
            try c.decodeIfPresent(Double.self, forKey: .warnInodesUsedPercent) ?? warnInodesUsedPercent
        critInodesUsedPercent =
            try c.decodeIfPresent(Double.self, forKey: .critInodesUsedPercent) ?? critInodesUsedPercent
        timeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .timeout) ?? timeout
    }

    /// `"*"` or a list of mount points.
    private static func decodeMounts(_ decoder: any Decoder) throws -> Mounts {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            guard text == "*" else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "expected \"*\" or a list of mount points, found \"\(text)\""))
            }
            return .all
        }
        return .listed(try [String](from: decoder))
    }

    /// Checks what decoding cannot: ranges, the order of thresholds, the shape of paths.
    func validate() throws(ProbeConfigError) {
        if case .listed(let paths) = mounts {
            guard !paths.isEmpty else {
                throw ProbeConfigError("mounts", "lists no mount point; use \"*\" for every filesystem")
            }
            var seen: Set<String> = []
            for (index, path) in paths.enumerated() {
                guard path.hasPrefix("/") else {
                    throw ProbeConfigError("mounts[\(index)]", "expected an absolute path, found \"\(path)\"")
                }
                guard seen.insert(Self.normalized(path)).inserted else {
                    throw ProbeConfigError("mounts[\(index)]", "\"\(path)\" is listed twice")
                }
            }
        }
        try Self.checkPercentPair(
            warn: warnUsedPercent, warnKey: "warn_used_percent",
            crit: critUsedPercent, critKey: "crit_used_percent")
        try Self.checkPercentPair(
            warn: warnInodesUsedPercent, warnKey: "warn_inodes_used_percent",
            crit: critInodesUsedPercent, critKey: "crit_inodes_used_percent")
        guard timeout.nanoseconds > 0 else {
            throw ProbeConfigError("timeout", "expected a duration above zero, found \(timeout)")
        }
    }

    /// The listed mount points as the kernel writes them ("/var/" and "//var" are "/var").
    /// Symbolic links are not followed: resolving a path means touching the mounts on it,
    /// which could hang on a dead one.
    var listedMountPoints: [String]? {
        guard case .listed(let paths) = mounts else { return nil }
        return paths.map(Self.normalized)
    }

    static func normalized(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return "/" + parts.joined(separator: "/")
    }

    private static func checkPercentPair(
        warn: Double, warnKey: String, crit: Double, critKey: String
    ) throws(ProbeConfigError) {
        for (value, key) in [(warn, warnKey), (crit, critKey)] where !(0...100).contains(value) {
            throw ProbeConfigError(key, "expected a percentage from 0 to 100, found \(Percent.text(value))")
        }
        guard warn <= crit else {
            throw ProbeConfigError(
                warnKey, "must not exceed \(critKey) (\(Percent.text(crit))), found \(Percent.text(warn))")
        }
    }
}

/// A size as the operator wrote it, kept for messages ("below min_free 600 MB").
struct WrittenSize: Decodable, Sendable, Equatable {
    var bytes: UInt64
    var text: String

    init(bytes: UInt64, text: String) {
        self.bytes = bytes
        self.text = text
    }

    init(from decoder: any Decoder) throws {
        let size = try ByteSize(from: decoder)
        bytes = size.bytes
        if let written = try? decoder.singleValueContainer().decode(String.self) {
            text = written.trimmingCharacters(in: " ")
            // "600MB" reads better as "600 MB" in a sentence.
            if let unitStart = text.firstIndex(where: { $0.isLetter }), unitStart != text.startIndex,
                text[text.index(before: unitStart)] != " "
            {
                text.insert(" ", at: unitStart)
            }
        } else {
            text = "\(size.bytes) B"
        }
    }
}

/// Percentages as people write them: "85", "92.5".
enum Percent {
    static func text(_ value: Double) -> String { JSONSerializer.formatNumber(value) }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(drop(while: { $0 == set }).reversed().drop(while: { $0 == set }).reversed())
    }
}
