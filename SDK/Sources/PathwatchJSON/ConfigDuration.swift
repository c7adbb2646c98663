/// A duration written with a unit, as config files carry them: "250ms", "5s", "2m", "1h", "14d",
/// also "1.5s" and "1m30s". A bare number is refused: "10" could mean seconds or milliseconds.
public struct ConfigDuration: Sendable, Hashable, Comparable, CustomStringConvertible, Decodable {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    public static func milliseconds(_ ms: Int64) -> ConfigDuration { .init(nanoseconds: ms * 1_000_000) }
    public static func seconds(_ s: Int64) -> ConfigDuration { .init(nanoseconds: s * 1_000_000_000) }

    public var seconds: Double { Double(nanoseconds) / 1e9 }
    public var milliseconds: Double { Double(nanoseconds) / 1e6 }
    public var duration: Duration { .nanoseconds(nanoseconds) }

    static let units: [(suffix: String, nanos: Double)] = [
        ("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9), ("d", 86400e9),
    ]

    /// Parses "1m30s"-style text; nil when it is not a duration.
    public init?(parsing text: String) {
        var rest = Substring(text.trimmingSpaces())
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        while !rest.isEmpty {
            let numberPart = rest.prefix(while: { $0.isNumber || $0 == "." })
            guard !numberPart.isEmpty, let value = Double(numberPart) else { return nil }
            rest = rest.dropFirst(numberPart.count)
            let unitPart = rest.prefix(while: { $0.isLetter || $0 == "µ" })
            guard let unit = Self.units.first(where: { $0.suffix == unitPart }) else { return nil }
            rest = rest.dropFirst(unitPart.count)
            total += value * unit.nanos
        }
        guard total.isFinite, total < 9.2e18 else { return nil }
        self.nanoseconds = Int64(total.rounded())
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let text = try? container.decode(String.self) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a duration with a unit, like \"250ms\", \"5s\" or \"2m\"")
        }
        guard let parsed = ConfigDuration(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription:
                    "\"\(text)\" is not a duration; expected a number with a unit (ms, s, m, h, d), like \"250ms\" or \"5s\""
            )
        }
        self = parsed
    }

    public static func < (a: ConfigDuration, b: ConfigDuration) -> Bool { a.nanoseconds < b.nanoseconds }

    /// The shortest exact rendering: "250ms", "5s", "2m", "1.5s".
    public var description: String {
        let n = nanoseconds
        for (suffix, nanos) in [
            ("d", 86_400_000_000_000), ("h", 3_600_000_000_000), ("m", 60_000_000_000), ("s", 1_000_000_000),
            ("ms", 1_000_000), ("us", 1000),
        ] as [(String, Int64)] {
            if n != 0, n % nanos == 0 { return "\(n / nanos)\(suffix)" }
        }
        if n >= 1_000_000_000 { return "\(JSONSerializer.formatNumber((Double(n) / 1e9 * 1000).rounded() / 1000))s" }
        if n >= 1_000_000 { return "\(JSONSerializer.formatNumber((Double(n) / 1e6 * 1000).rounded() / 1000))ms" }
        return "\(n)ns"
    }
}

/// A size: a plain byte count or a string with a unit. Decimal units (kB, MB, GB, TB) are powers
/// of 1000 and binary units (KiB, MiB, GiB, TiB) powers of 1024, as `df -H` and `df -h` use them.
public struct ByteSize: Sendable, Hashable, Comparable, CustomStringConvertible, Decodable {
    public var bytes: UInt64

    public init(bytes: UInt64) { self.bytes = bytes }

    static let units: [(suffix: String, factor: Double)] = [
        ("B", 1), ("kB", 1e3), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12), ("PB", 1e15),
        ("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("TiB", 1_099_511_627_776),
        ("PiB", 1_125_899_906_842_624),
    ]

    public init?(parsing text: String) {
        let trimmed = text.trimmingSpaces()
        let numberPart = trimmed.prefix(while: { $0.isNumber || $0 == "." })
        let unitPart = trimmed.dropFirst(numberPart.count).trimmingSpaces()
        guard let value = Double(numberPart), value >= 0 else { return nil }
        let factor: Double
        if unitPart.isEmpty {
            factor = 1
        } else if let unit = Self.units.first(where: { $0.suffix == unitPart }) {
            factor = unit.factor
        } else {
            return nil
        }
        let total = (value * factor).rounded()
        guard total < 1.8e19 else { return nil }
        self.bytes = UInt64(total)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let n = try? container.decode(UInt64.self) {
            self.bytes = n
            return
        }
        guard let text = try? container.decode(String.self), let parsed = ByteSize(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "expected a size: a byte count or a string with a unit, like \"600MB\" or \"1.5GiB\"")
        }
        self = parsed
    }

    public static func < (a: ByteSize, b: ByteSize) -> Bool { a.bytes < b.bytes }

    /// The units `description` uses, largest first: made once, not with every description (a
    /// disk check's message has two).
    private static let binaryUnits: [(suffix: String, factor: Double)] = [
        ("GiB", 1_073_741_824.0), ("MiB", 1_048_576.0), ("KiB", 1024.0),
    ]

    public var description: String {
        for (suffix, factor) in Self.binaryUnits where Double(bytes) >= factor {
            return "\(JSONSerializer.formatNumber((Double(bytes) / factor * 10).rounded() / 10)) \(suffix)"
        }
        return "\(bytes) B"
    }
}

extension StringProtocol {
    /// Indices rather than reversed views: each generic view type is metadata the runtime
    /// builds, and checks conformances for, the first time a process uses it.
    func trimmingSpaces() -> String {
        guard let first = firstIndex(where: { $0 != " " }), let last = lastIndex(where: { $0 != " " }) else {
            return ""
        }
        return String(self[first...last])
    }
}
