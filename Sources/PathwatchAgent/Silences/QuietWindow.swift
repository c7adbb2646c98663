import PathwatchSinkKit

/// One entry of `agent.quiet`: a maintenance window in the configuration, in which the checks
/// it names notify nobody (contract §5):
///
///     {"checks": ["api/*"], "weekly": "Sat 22:00-Sun 06:00", "comment": "backups"}
///     {"checks": ["*"], "from": "2026-12-24T18:00:00Z", "until": "2026-12-26T08:00:00Z"}
package struct QuietWindow: Sendable, Equatable, Decodable {
    package static let maxWindows = 64

    package var rule: SilenceRule
    package var comment: String?
    /// The text the window was written as, for `pathwatch silence --list`.
    package var written: String

    enum CodingKeys: String, CodingKey { case checks, weekly, from, until, comment }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        guard let checks = try c.decodeIfPresent([String].self, forKey: .checks) else {
            throw DecodingError.dataCorruptedError(
                forKey: .checks, in: c, debugDescription: "is missing: a window names the checks it silences (globs)")
        }
        guard SilenceRule.validPatterns(checks) else {
            throw DecodingError.dataCorruptedError(
                forKey: .checks, in: c,
                debugDescription:
                    "expected 1 to \(SilenceRule.maxPatterns) glob patterns of 1 to \(SilenceRule.maxPatternBytes) bytes"
            )
        }
        comment = try c.decodeIfPresent(String.self, forKey: .comment)
        if let comment, comment.utf8.count > 200 || comment.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw DecodingError.dataCorruptedError(
                forKey: .comment, in: c, debugDescription: "expected one line of at most 200 bytes")
        }
        if let weekly = try c.decodeIfPresent(String.self, forKey: .weekly) {
            for key in [CodingKeys.from, .until] where c.contains(key) {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c, debugDescription: "give weekly, or from and until, not both")
            }
            guard let when = WeeklyTimes.parse(weekly) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .weekly, in: c,
                    debugDescription:
                        "expected \"Sat 22:00-Sun 06:00\" (day and time to day and time) or \"22:00-06:00\" (every day), local time"
                )
            }
            rule = SilenceRule(checks: checks, when: when)
            written = "weekly \(weekly)"
            return
        }
        guard let fromText = try c.decodeIfPresent(String.self, forKey: .from) else {
            throw DecodingError.dataCorruptedError(
                forKey: .weekly, in: c, debugDescription: "is missing: a window is weekly, or from and until")
        }
        guard let from = SilenceTime.parse(fromText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .from, in: c, debugDescription: "expected an RFC 3339 time in UTC (2026-12-24T18:00:00Z)")
        }
        guard let untilText = try c.decodeIfPresent(String.self, forKey: .until),
            let until = SilenceTime.parse(untilText),
            until.milliseconds > from.milliseconds
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .until, in: c, debugDescription: "expected an RFC 3339 time in UTC after from")
        }
        rule = SilenceRule(checks: checks, when: .between(from: from.milliseconds, until: until.milliseconds))
        written = "from \(from.rfc3339) until \(until.rfc3339)"
    }
}

/// The times silences are written in.
package enum SilenceTime {
    /// An RFC 3339 time in UTC, with or without milliseconds (`2026-12-24T18:00:00Z`).
    package static func parse(_ text: String) -> WallTime? {
        if text.utf8.count == 20, text.hasSuffix("Z") { return WallTime(rfc3339: text.dropLast() + ".000Z") }
        return WallTime(rfc3339: text)
    }
}
