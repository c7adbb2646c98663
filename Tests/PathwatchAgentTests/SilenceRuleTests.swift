import Foundation
import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// Quiet windows' times: weekly ones in local time, past midnight and past Saturday; daily ones;
/// once-only ones end at their end; globs on check ids.
@Suite struct SilenceRuleTests {
    /// Milliseconds of a local time in the week of Sunday 2026-11-29.
    func local(day: Int, hour: Int, minute: Int = 0) -> WallTime {
        var parts = tm()
        parts.tm_year = 2026 - 1900
        parts.tm_mon = 10
        parts.tm_mday = Int32(29 + day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_isdst = -1
        return WallTime(milliseconds: Int64(mktime(&parts)) * 1000)
    }

    @Test func aWeeklyWindowRunsFromItsDayAndTimeToItsOthers() throws {
        let rule = SilenceRule(checks: ["api/*"], when: try #require(WeeklyTimes.parse("Sat 22:00-Sun 06:00")))
        #expect(rule.covers("api/orion", at: local(day: 6, hour: 22)), "Saturday 22:00")
        #expect(rule.covers("api/orion", at: local(day: 0, hour: 5, minute: 59)), "Sunday 05:59")
        #expect(!rule.covers("api/orion", at: local(day: 0, hour: 6)), "Sunday 06:00")
        #expect(!rule.covers("api/orion", at: local(day: 6, hour: 21, minute: 59)), "Saturday 21:59")
        #expect(!rule.covers("api/orion", at: local(day: 3, hour: 23)), "a Wednesday night")
        #expect(!rule.covers("disk/root", at: local(day: 6, hour: 23)), "a check the globs leave out")
        let monday = SilenceRule(checks: ["*"], when: try #require(WeeklyTimes.parse("mon 08:00-MON 09:30")))
        #expect(monday.isActive(at: local(day: 1, hour: 9, minute: 29)))
        #expect(!monday.isActive(at: local(day: 1, hour: 9, minute: 30)))
    }

    @Test func aDailyWindowRunsPastMidnightAndAllDayIsAlways() throws {
        let night = SilenceRule(checks: ["*"], when: try #require(WeeklyTimes.parse("22:00-06:00")))
        for day in 0..<7 {
            #expect(night.isActive(at: local(day: day, hour: 23)) && night.isActive(at: local(day: day, hour: 2)))
            #expect(!night.isActive(at: local(day: day, hour: 12)))
        }
        let always = SilenceRule(checks: ["*"], when: try #require(WeeklyTimes.parse("00:00-24:00")))
        #expect(always.isActive(at: local(day: 2, hour: 0)) && always.isActive(at: local(day: 4, hour: 23, minute: 59)))
        for bad in ["22:00", "22:00-22:00", "Sat 22:00-06:00", "Fri 25:00-Sat 01:00", "Funday 10:00-Sat 11:00", ""] {
            #expect(WeeklyTimes.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func aOnceOnlyWindowEndsAtItsEnd() {
        let rule = SilenceRule(checks: ["*"], when: .between(from: 1_000, until: 61_500))
        #expect(rule.isActive(at: WallTime(milliseconds: 1_000)) && !rule.isActive(at: WallTime(milliseconds: 61_500)))
        #expect(!rule.isOver(at: WallTime(milliseconds: 61_499)) && rule.isOver(at: WallTime(milliseconds: 61_500)))
        #expect(SilenceTime.parse("2026-12-24T18:00:00Z")?.rfc3339 == "2026-12-24T18:00:00.000Z")
    }
}
