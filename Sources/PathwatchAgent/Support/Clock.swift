import PathwatchProbeKit

/// Wall-clock instants as the status document writes them: RFC 3339, UTC, milliseconds.
public struct WallTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch.
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public static func now() -> WallTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return WallTime(milliseconds: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }

    public static func < (a: WallTime, b: WallTime) -> Bool { a.milliseconds < b.milliseconds }

    /// "2026-11-21T20:51:00.123Z"
    public var rfc3339: String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let ms = Int32(milliseconds % 1000)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(ms, 3))Z"
    }

    public var description: String { rfc3339 }
}

/// Monotonic time in nanoseconds, for intervals and deadlines (never steps with the wall clock).
func monotonicNanoseconds() -> UInt64 { UInt64(MonotonicClock.nowNanoseconds()) }
