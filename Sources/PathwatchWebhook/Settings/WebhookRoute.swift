import Glibc
import PathwatchProbeKit
import PathwatchSinkKit

/// `route`: which changes go to this sink, so critical goes to the pager and everything to
/// chat. `probes` and `checks` are shell globs (`fnmatch`: `*`, `?`, `[…]`) on the probe's and
/// the check's id; `states`, the states a change goes to that are sent. A change to ok is sent
/// when the state it leaves is one of them: the recovery closes what the route opened. A change
/// must match all three.
struct WebhookRoute: Sendable, Equatable, Decodable {
    static let maxPatterns = 32
    static let maxPatternBytes = 256

    var probes: [String] = ["*"]
    var checks: [String] = ["*"]
    var states: Set<CheckState> = Set(CheckState.allCases)

    enum CodingKeys: String, CodingKey { case probes, checks, states }

    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        probes = try Self.patterns(.probes, in: c) ?? probes
        checks = try Self.patterns(.checks, in: c) ?? checks
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

    private static func patterns(_ key: CodingKeys, in c: KeyedDecodingContainer<CodingKeys>) throws -> [String]? {
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

    func admits(_ event: ChangeEvent) -> Bool {
        guard Self.matches(event.probe, probes), Self.matches(event.check, checks) else { return false }
        if states.contains(event.to) && event.to != .ok { return true }
        // A recovery goes where what it recovers from went (a first ok, from nowhere, when ok is routed).
        guard event.to == .ok else { return false }
        return event.from.map { states.contains($0) } ?? states.contains(.ok)
    }

    /// Whether a check still in `state` is within the route (for reminders).
    func admits(probe: String, check: String, state: CheckState) -> Bool {
        Self.matches(probe, probes) && Self.matches(check, checks) && states.contains(state)
    }

    private static func matches(_ text: String, _ patterns: [String]) -> Bool {
        patterns.contains { fnmatch($0, text, 0) == 0 }
    }
}
