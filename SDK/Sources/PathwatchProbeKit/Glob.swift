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

    public init(_ pattern: String) { self.pattern = pattern }

    public init(from decoder: any Decoder) throws {
        self.pattern = try decoder.singleValueContainer().decode(String.self)
    }

    public func matches(_ name: String) -> Bool { fnmatch(pattern, name, 0) == 0 }

    public var description: String { pattern }
}

extension Array where Element == Glob {
    public func matchesAny(_ name: String) -> Bool { contains { $0.matches(name) } }
}
