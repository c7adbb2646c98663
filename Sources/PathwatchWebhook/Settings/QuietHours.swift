import Glibc
import PathwatchSinkKit

/// `quiet_hours`: windows in which this sink notifies nothing, so a maintenance window does
/// not page anyone: each either a start and an end (RFC 3339), or weekly days and times in the
/// host's local time, which may run past midnight:
///
///     "quiet_hours": [{"start": "2026-12-24T18:00:00Z", "end": "2026-12-26T08:00:00Z"},
///                     {"days": ["mon", "tue", "wed", "thu", "fri"], "from": "22:00", "to": "07:00"}]
///
/// What changed inside a window and is not as last told when it ends is told then
/// (`QuietCatchUp`). Times are the agent's clock's.
struct QuietHours: Sendable, Equatable, Decodable {
    static let maxWindows = 32
    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    enum Window: Sendable, Equatable {
        case once(start: Int64, end: Int64)
        /// Days (0 Sunday … 6 Saturday) and minutes of the day, `to` may be below `from`.
        case weekly(days: Set<Int>, from: Int, to: Int)
    }

    var windows: [Window]

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(windows: [Window]) { self.windows = windows }

    init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        windows = []
        while !list.isAtEnd {
            let c = try list.nestedContainer(keyedBy: AnyKey.self)
            let keys = Set(c.allKeys.map(\.stringValue))
            func fail(_ key: String, _ text: String) -> DecodingError {
                DecodingError.dataCorruptedError(forKey: AnyKey(stringValue: key), in: c, debugDescription: text)
            }
            if keys == ["start", "end"] {
                guard let start = Self.time(try c.decode(String.self, forKey: AnyKey(stringValue: "start"))) else {
                    throw fail("start", "expected an RFC 3339 time in UTC (2026-12-24T18:00:00Z)")
                }
                guard let end = Self.time(try c.decode(String.self, forKey: AnyKey(stringValue: "end"))), end > start
                else { throw fail("end", "expected an RFC 3339 time in UTC after start") }
                windows.append(.once(start: start.milliseconds, end: end.milliseconds))
            } else if keys == ["days", "from", "to"] {
                let names = try c.decode([String].self, forKey: AnyKey(stringValue: "days"))
                let days = Set(names.compactMap { Self.dayNames.firstIndex(of: $0) })
                guard !names.isEmpty, days.count == Set(names).count else {
                    throw fail("days", "expected days among \(Self.dayNames.joined(separator: ", "))")
                }
                guard let from = Self.minutes(try c.decode(String.self, forKey: AnyKey(stringValue: "from"))),
                    from < 1440
                else { throw fail("from", "expected a time of day, HH:MM") }
                guard let to = Self.minutes(try c.decode(String.self, forKey: AnyKey(stringValue: "to"))), to != from
                else { throw fail("to", "expected a time of day, HH:MM (24:00 for midnight), not from's") }
                windows.append(.weekly(days: days, from: from, to: to))
            } else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: c.codingPath,
                        debugDescription: "expected a window: {\"start\", \"end\"} or {\"days\", \"from\", \"to\"}"))
            }
        }
        guard (1...Self.maxWindows).contains(windows.count) else {
            throw DecodingError.dataCorruptedError(
                in: list, debugDescription: "expected 1 to \(Self.maxWindows) windows")
        }
    }

    /// An RFC 3339 time in UTC, with or without milliseconds (`2026-12-24T18:00:00Z`).
    static func time(_ text: String) -> WallTime? {
        if text.utf8.count == 20, text.hasSuffix("Z") { return WallTime(rfc3339: text.dropLast() + ".000Z") }
        return WallTime(rfc3339: text)
    }

    /// "HH:MM" as minutes of the day; "24:00" is 1440.
    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
            (0...24).contains(h), (0...59).contains(m), h * 60 + m <= 1440
        else { return nil }
        return h * 60 + m
    }

    func covers(_ time: WallTime) -> Bool {
        let (day, minute) = Self.local(time)
        return windows.contains { window in
            switch window {
            case .once(let start, let end): return (start..<end).contains(time.milliseconds)
            case .weekly(let days, let from, let to):
                if from < to { return days.contains(day) && (from..<to).contains(minute) }
                return (days.contains(day) && minute >= from) || (days.contains((day + 6) % 7) && minute < to)
            }
        }
    }

    /// The first instant at or after `time` that no window covers (within 8 days; nil past it):
    /// a start-and-end window ends at its end, a weekly one at a minute.
    func end(after time: WallTime) -> WallTime? {
        var t = time
        for _ in 0..<(8 * 1440 + windows.count) {
            guard covers(t) else { return t }
            let ends = windows.compactMap { window -> Int64? in
                guard case .once(let start, let end) = window, (start..<end).contains(t.milliseconds) else {
                    return nil
                }
                return end
            }
            t = WallTime(milliseconds: ends.max() ?? (t.milliseconds / 60_000 + 1) * 60_000)
        }
        return nil
    }

    /// The weekday (0 Sunday) and minute of the day of `time` in the host's local time.
    static func local(_ time: WallTime) -> (day: Int, minute: Int) {
        var seconds = time_t(time.milliseconds / 1000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return (Int(parts.tm_wday), Int(parts.tm_hour) * 60 + Int(parts.tm_min))
    }
}
