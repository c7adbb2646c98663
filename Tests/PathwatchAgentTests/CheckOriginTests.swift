import PathwatchProbeKit
import PathwatchProbeRules
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// A check's probe, plug-in and metric catalog are held once for the probe's checks, not by
/// each record: every check still reads as its own.
@Suite struct CheckOriginTests {
    var book = CheckBook(agentName: "test-host")
    var clock: Int64 = 1_700_000_000_000

    init() {
        book.policies["p"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "disk")
        book.policies["q"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "dns")
    }

    mutating func sample(_ probe: String, _ keys: [String]) {
        clock += 1000
        let observations = keys.map { Observation(key: $0, state: .ok, message: "", metrics: [Metric("used", 1)]) }
        _ = book.apply(.sample(observations), probe: probe, at: WallTime(milliseconds: clock))
    }

    func origin(_ id: String) throws -> CheckOrigin { try #require(book.records[id]).origin }

    @Test mutating func theChecksOfAProbeShareOneOriginAndReadItAsTheirOwn() throws {
        sample("p", ["a", "b", "c"])
        sample("q", ["a"])
        let p = try origin("p/a")
        #expect(try origin("p/b") === p && origin("p/c") === p)
        #expect(try origin("q/a") !== p)
        let b = try #require(book.records["p/b"])
        #expect(b.probe == "p" && b.plugin == "disk" && b.metricCatalog === MetricCatalog.undeclared)
        #expect(try #require(book.records["q/a"]).plugin == "dns")

        // Checks that come later, and the next samples, keep the one origin.
        sample("p", ["c", "d", "a"])
        #expect(try origin("p/d") === p && origin("p/a") === p && origin("p/c") === p)
        // A probe-level failure check has its probe's origin too.
        book.policies["r"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "exec")
        _ = book.apply(.failure("cannot start"), probe: "r", at: WallTime(milliseconds: clock))
        let failed = try #require(book.records["r"])
        #expect(failed.probe == "r" && failed.plugin == "exec" && failed.state == .unknown)
    }

    @Test mutating func aPolicyWithOtherMetricsGivesTheChecksANewOriginSharedAgain() throws {
        sample("p", ["a", "b"])
        let before = try origin("p/a")
        let catalog = try MetricCatalog.checked([.gauge("used", unit: "By", help: "Bytes used.")]).get()
        book.policies["p"]?.metrics = catalog
        sample("p", ["a", "b"])
        let after = try origin("p/a")
        #expect(after !== before && after.metricCatalog === catalog)
        #expect(try origin("p/b") === after, "the probe's one new origin, not one of its own")
        #expect(after.probe == "p" && after.plugin == "disk")

        // Checks a sample leaves out, and a failure of the probe, share the new origin too.
        sample("p", ["a", "b", "c"])
        let withC = try origin("p/a")
        book.policies["p"]?.metrics = .undeclared
        sample("p", ["a"])
        #expect(try origin("p/b") === origin("p/c") && origin("p/b") !== withC, "not reported: one new origin")
        book.policies["p"]?.metrics = catalog
        _ = book.apply(.failure("cannot read"), probe: "p", at: WallTime(milliseconds: clock))
        let failed = try origin("p/a")
        #expect(try failed.metricCatalog === catalog && origin("p/b") === failed && origin("p/c") === failed)
    }

    /// The saving the shared origin is for: what a snapshot's copy of the table holds per check.
    @Test func aRecordTakesOneHundredAndTwelveBytes() {
        #expect(MemoryLayout<CheckRecord>.stride == 112)
    }
}
