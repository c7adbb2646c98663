#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Shell-style globs ("eth*", "wlan?", "veth[0-9]") as operators write interface and mount
/// patterns, matched with fnmatch(3).
public struct Glob: Sendable, Hashable, Decodable, CustomStringConvertible {
    public let pattern: String
    /// No `*`, `?`, `[` or `\`: the pattern matches only itself, and is compared byte for byte,
    /// as fnmatch would. A probe that reports a required name as absent asks this, so that what
    /// it calls a name is what the match treats as one (`a\b` is a glob matching `ab`).
    /// (Most patterns are plain names, "lo" or "docker0", matched against every interface on
    /// every event; fnmatch costs some hundred times a comparison.)
    public let isLiteral: Bool

    public init(_ pattern: String) {
        self.pattern = pattern
        self.isLiteral = !pattern.utf8.contains {
            $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "\\")
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func matches(_ name: String) -> Bool {
        isLiteral ? pattern.utf8.elementsEqual(name.utf8) : fnmatch(pattern, name, 0) == 0
    }

    public static func == (a: Glob, b: Glob) -> Bool { a.pattern == b.pattern }
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    public var description: String { pattern }
}

extension Array where Element == Glob {
    public func matchesAny(_ name: String) -> Bool { contains { $0.matches(name) } }
}
