/// The `weekly` text of a quiet window: `"Sat 22:00-Sun 06:00"` (from a day and time to a day
/// and time, local time, which may wrap past Saturday) or `"22:00-06:00"` (every day, which may
/// run past midnight). Days are `Sun` … `Sat`, in any case; `24:00` is the end of a day.
enum WeeklyTimes {
    static let days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// The window as a repeating rule's period, start and length (minutes); nil when the text is
    /// not one.
    static func parse(_ text: String) -> SilenceRule.When? {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2 else { return nil }
        let from = ends[0].split(separator: " ")
        let to = ends[1].split(separator: " ")
        switch (from.count, to.count) {
        case (1, 1):
            guard let start = minutes(from[0]), let end = minutes(to[0]), start != end, start < 1440 else { return nil }
            return .repeating(period: 1440, start: start, length: end > start ? end - start : end - start + 1440)
        case (2, 2):
            guard let startDay = day(from[0]), let endDay = day(to[0]), let startTime = minutes(from[1]),
                let endTime = minutes(to[1]), startTime < 1440
            else { return nil }
            let start = startDay * 1440 + startTime
            let end = endDay * 1440 + endTime
            guard start != end % 10080 else { return nil }
            return .repeating(period: 10080, start: start, length: end > start ? end - start : end - start + 10080)
        default: return nil
        }
    }

    private static func day(_ text: Substring) -> Int? { days.firstIndex(of: text.lowercased()) }

    /// "HH:MM" as minutes of the day; "24:00" is 1440.
    static func minutes(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
            (0...24).contains(h), (0...59).contains(m), h * 60 + m <= 1440
        else { return nil }
        return h * 60 + m
    }
}
