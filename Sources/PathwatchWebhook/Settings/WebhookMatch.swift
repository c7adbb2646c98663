import Glibc
import PathwatchProbeKit
import PathwatchSinkKit

/// `match`: which changes go to this sink, so critical goes to the pager and everything to
/// chat. `checks` are shell globs (`fnmatch`: `*`, `?`, `[…]`) on the check's id, which begins
/// with its probe's (`api/*`, `disk/[rv]*`); `states`, the states a change goes to that are
/// sent; `path` (default true), whether the changes of the checks that make the path (a link's,
/// the internet check's: those that publish `pathwatch.*` labels) are sent, so a laptop's
/// Wi-Fi flapping can stay out of the pager. A change to ok is sent when the state it leaves
/// is one of `states`: the recovery closes what the match opened. A change must match all three.
struct WebhookMatch: Sendable, Equatable, Decodable {
    static let maxPatterns = 32
    static let maxPatternBytes = 256

    var checks: [String] = ["*"]
    var states: Set<CheckState> = Set(CheckState.allCases)
    var path = true

    enum CodingKeys: String, CodingKey { case checks, states, path }

    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        checks = try Self.patterns(.checks, in: c) ?? checks
        path = try c.decodeIfPresent(Bool.self, forKey: .path) ?? path
        if let names = try c.decodeIfPresent([String].self, forKey: .states) {
            var states: Set<CheckState> = []
            for name in names {
                guard let state = CheckState.allCases.first(where: { $0.name == name }) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .states, in: c,
                        debugDescription:
                            "expected states among \"ok\", \"warning\", \"critical\", \"unknown\", found \"\(name.prefix(24))\""
                    )
                }
                states.insert(state)
            }
            guard !states.isEmpty else {
                throw DecodingError.dataCorruptedError(
                    forKey: .states, in: c, debugDescription: "expected at least one state (or no states key: all)")
            }
            self.states = states
        }
    }

    private static func patterns(_ key: CodingKeys, in c: ConfigObject<CodingKeys>) throws -> [String]? {
        guard let patterns = try c.decodeIfPresent([String].self, forKey: key) else { return nil }
        guard (1...maxPatterns).contains(patterns.count),
            patterns.allSatisfy({ !$0.isEmpty && $0.utf8.count <= maxPatternBytes && !$0.utf8.contains(0) })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: c,
                debugDescription: "expected 1 to \(maxPatterns) glob patterns of 1 to \(maxPatternBytes) bytes")
        }
        return patterns
    }

    /// Whether `event` goes; `pathCheck`: its check is one that makes the path.
    func admits(_ event: ChangeEvent, pathCheck: Bool) -> Bool {
        guard path || !pathCheck, Self.matches(event.check, checks) else { return false }
        if states.contains(event.to) && event.to != .ok { return true }
        // A recovery goes where what it recovers from went (a first ok, from nowhere, when ok is matched).
        guard event.to == .ok else { return false }
        return event.from.map { states.contains($0) } ?? states.contains(.ok)
    }

    /// Whether a check still in `state` is within the match (for reminders).
    func admits(_ record: CheckRecord) -> Bool {
        (path || record.pathFacts.isEmpty) && Self.matches(record.id, checks) && states.contains(record.state)
    }

    private static func matches(_ text: String, _ patterns: [String]) -> Bool {
        patterns.contains { fnmatch($0, text, 0) == 0 }
    }
}
