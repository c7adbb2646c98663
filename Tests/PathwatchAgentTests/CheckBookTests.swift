import CPathwatchProbe
import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// The per-check state machine, change events, staleness, failures, the path and the offline guard.
@Suite struct CheckBookTests {
    var book = CheckBook(agentName: "test-host")
    var clock: Int64 = 1_700_000_000_000

    init() {
        book.probeOrder = ["link", "api", "disk"]
        book.policies["disk"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "disk")
        book.policies["api"] = ProbePolicy(failAfter: 3, recoverAfter: 2, needsNetwork: true, plugin: "reachability")
        book.policies["link"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "linkstate")
    }

    mutating func apply(_ report: ProbeReport, _ probe: String) -> [ChangeEvent] {
        clock += 1000
        return book.apply(report, probe: probe, at: WallTime(milliseconds: clock))
    }

    func obs(_ key: String, _ state: CheckState, _ message: String = "") -> Observation {
        Observation(key: key, state: state, message: message)
    }

    /// An interface observation carrying the well-known path labels.
    func link(_ name: String, usable: Bool, route: Int?, type: String = "ethernet", metered: Bool = false)
        -> Observation
    {
        var labels: [(name: String, value: String)] = [
            ("type", type), (PW_LABEL_IF_NAME, name), (PW_LABEL_IF_TYPE, type),
            (PW_LABEL_IF_USABLE, usable ? "1" : "0"), (PW_LABEL_METERED, metered ? "1" : "0"),
        ]
        if let route { labels.append((PW_LABEL_DEFAULT_ROUTE, String(route))) }
        return Observation(key: name, state: usable ? .ok : .critical, message: usable ? "up" : "down", labels: labels)
    }

    /// Whether a report changed what a check is, events or not: what makes the agent send the
    /// whole state at once rather than in the next paced batch.
    @Test mutating func aReportSaysWhetherItChangedAState() {
        _ = apply(.sample([obs("/", .ok)]), "disk")
        #expect(book.lastReportChangedState, "a new check")
        _ = apply(.sample([obs("/", .ok, "still fine")]), "disk")
        #expect(!book.lastReportChangedState, "only the message changed")
        // The first state seen ok raises no event, but it is a new check all the same; and a
        // change of state raises one.
        let events = apply(.sample([obs("/", .critical, "full")]), "disk")
        #expect(book.lastReportChangedState && events.count == 1)
        // A state that changes silently (the offline guard holds the api's alerts back) is a
        // change too.
        _ = apply(.sample([link("eth0", usable: false, route: nil)]), "link")
        for _ in 0..<3 { _ = apply(.sample([obs("x", .critical, "timed out")]), "api") }
        let recovered = (0..<2).map { _ in apply(.sample([obs("x", .ok)]), "api") }
        #expect(recovered.allSatisfy { $0.isEmpty }, "the api's checks stay silent while the host is offline")
        #expect(book.lastReportChangedState, "the api's check is ok again though no event says so")
    }

    @Test mutating func firstStateOkIsSilentAndProblemsAreAnnounced() {
        #expect(apply(.sample([obs("/", .ok)]), "disk").isEmpty)
        let events = apply(.sample([obs("/", .ok), obs("/var", .critical, "98% used")]), "disk")
        #expect(events.count == 1)
        #expect(events[0].check == "disk//var" && events[0].from == nil && events[0].to == .critical)
        #expect(events[0].json["from"] == "unknown")
        #expect(events[0].message == "98% used")
    }

    @Test mutating func failAfterAndRecoverAfterDebounce() {
        _ = apply(.sample([obs("x", .ok)]), "api")
        // fail_after 3: two bad samples are not enough; the message shows the progress.
        #expect(apply(.sample([obs("x", .critical, "HTTP 503")]), "api").isEmpty)
        #expect(book.records["api/x"]?.state == .ok)
        #expect(book.records["api/x"]?.message == "HTTP 503 (1/3 toward critical)")
        #expect(apply(.sample([obs("x", .critical)]), "api").isEmpty)
        // A good sample in between resets the count.
        #expect(apply(.sample([obs("x", .ok)]), "api").isEmpty)
        #expect(apply(.sample([obs("x", .critical)]), "api").isEmpty)
        #expect(apply(.sample([obs("x", .critical)]), "api").isEmpty)
        let sinceBefore = book.records["api/x"]!.since
        let down = apply(.sample([obs("x", .critical, "HTTP 503")]), "api")
        #expect(down.count == 1 && down[0].from == .ok && down[0].to == .critical)
        #expect(book.records["api/x"]!.since > sinceBefore)
        // recover_after 2.
        #expect(apply(.sample([obs("x", .ok)]), "api").isEmpty)
        let up = apply(.sample([obs("x", .ok)]), "api")
        #expect(up.count == 1 && up[0].from == .critical && up[0].to == .ok)
        #expect(up[0].id != down[0].id)
    }

    @Test mutating func unreportedCheckGoesUnknownOnFullSamplesOnly() {
        _ = apply(.sample([obs("/", .ok), obs("/mnt", .ok)]), "disk")
        // An event report carries only what changed: nothing goes stale.
        #expect(apply(.event([obs("/", .ok)]), "disk").isEmpty)
        #expect(book.records["disk//mnt"]?.state == .ok)
        let events = apply(.sample([obs("/", .ok)]), "disk")
        #expect(events.count == 1)
        #expect(events[0].check == "disk//mnt" && events[0].to == .unknown)
        #expect(events[0].message.hasPrefix("not reported since 20"))
        #expect(book.records["disk//mnt"]?.fresh == false)
        #expect(book.records["disk//mnt"]?.metrics.isEmpty == true)
        // It comes back.
        let back = apply(.sample([obs("/", .ok), obs("/mnt", .ok)]), "disk")
        #expect(back.count == 1 && back[0].from == .unknown && back[0].to == .ok)
    }

    @Test mutating func failureMakesEveryCheckUnknownOrAProbeLevelCheck() {
        // No checks yet: a probe-level check carries the failure.
        _ = apply(.failure("timed out after 5s"), "disk")
        #expect(book.records["disk"]?.state == .unknown)
        #expect(book.records["disk"]?.message == "timed out after 5s")
        // Real checks replace it.
        _ = apply(.sample([obs("/", .ok), obs("/var", .warning)]), "disk")
        #expect(book.records["disk"] == nil)
        let events = apply(.failure("timed out after 5s"), "disk")
        #expect(Set(events.map(\.check)) == ["disk//", "disk//var"])
        #expect(events.allSatisfy { $0.to == .unknown && $0.message == "timed out after 5s" })
    }

    /// A report's checks are announced where it fed them, and found by id again once the
    /// probe-level failure check they replace is gone (its place taken by one of them): each
    /// check that changed says so once, whether the report fed every check of the probe (no
    /// stale ones to look for) or left one out.
    @Test mutating func aSampleReplacingAFailureAnnouncesEachOfItsChecksOnce() {
        _ = apply(.sample([obs("x", .ok)]), "api")
        _ = apply(.failure("timed out after 5s"), "disk")
        let first = apply(.sample([obs("/", .critical, "full"), obs("/var", .warning), obs("/tmp", .ok)]), "disk")
        #expect(first.map(\.check) == ["disk//", "disk//var"])
        #expect(book.records["disk"] == nil)
        #expect(book.records["disk//tmp"]?.state == .ok && book.records["api/x"]?.state == .ok)
        let left = apply(.sample([obs("/", .critical, "full"), obs("/var", .warning)]), "disk")
        #expect(left.map(\.check) == ["disk//tmp"] && left.first?.to == .unknown)
        let all = apply(.sample([obs("/", .ok), obs("/var", .warning), obs("/tmp", .ok)]), "disk")
        #expect(all.map(\.check) == ["disk//", "disk//tmp"])
        #expect(all.allSatisfy { $0.to == .ok })
    }

    @Test mutating func duplicateKeysInOneReportCountOnce() {
        _ = apply(.sample([obs("/", .critical, "first"), obs("/", .ok, "second")]), "disk")
        #expect(book.records["disk//"]?.message == "first")
    }

    @Test mutating func pathFollowsTheLowestMetricUsableDefaultRoute() {
        _ = apply(
            .sample([link("eth0", usable: true, route: 100), link("wwan0", usable: true, route: 50, type: "cellular")]),
            "link")
        #expect(book.path.status == .satisfied)
        #expect(book.path.interface == "wwan0" && book.path.type == "cellular" && book.path.expensive)
        #expect(book.path.description == "Connected via Cellular (wwan0)")
        // Reserved labels are facts for the host, not published labels.
        #expect(book.records["link/eth0"]!.labels.map(\.name) == ["type"])
        _ = apply(.event([link("wwan0", usable: false, route: 50, type: "cellular")]), "link")
        #expect(book.path.interface == "eth0" && !book.path.expensive)
        #expect(book.path.description == "Connected via Ethernet (eth0)")
        _ = apply(.event([link("eth0", usable: true, route: 100, metered: true)]), "link")
        #expect(book.path.expensive)
        _ = apply(.event([link("eth0", usable: true, route: nil)]), "link")
        #expect(book.path == .offline)
        #expect(book.path.description == "Offline - No internet connection")
        #expect(book.path.json["status"] == "unsatisfied")
    }

    @Test mutating func noLinkProbeMeansThePathIsUnmonitored() {
        _ = apply(.sample([obs("/", .ok)]), "disk")
        #expect(book.path.status == .unknown)
    }

    @Test mutating func offlineHostRaisesOnePathAlertNotOnePerEndpoint() {
        _ = apply(.sample([link("eth0", usable: true, route: 100), obs("path", .ok)]), "link")
        book.policies["api"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: true, plugin: "reachability")
        _ = apply(.sample([obs("a", .ok), obs("b", .ok)]), "api")
        // The link goes down: the link and path checks raise events...
        let offline = apply(
            .sample([
                link("eth0", usable: false, route: 100), obs("path", .critical, "Offline - No internet connection"),
            ]), "link")
        #expect(Set(offline.map(\.check)) == ["link/eth0", "link/path"])
        #expect(offline.allSatisfy { $0.path.status == .unsatisfied })
        // ...but the endpoints failing because of it stay silent, attributed to the host being offline.
        #expect(
            apply(
                .sample([obs("a", .critical, "connection refused"), obs("b", .critical, "DNS: no such host")]), "api"
            ).isEmpty)
        #expect(book.records["api/a"]?.state == .critical)
        #expect(book.records["api/a"]?.message == "connection refused (host offline)")
        // A disk check is not network-dependent: it still alerts while offline.
        _ = apply(.sample([obs("/", .ok)]), "disk")
        #expect(apply(.sample([obs("/", .critical)]), "disk").count == 1)
        // Back online: endpoints that recovered say nothing (they never announced a failure)...
        _ = apply(.sample([link("eth0", usable: true, route: 100), obs("path", .ok)]), "link")
        #expect(apply(.sample([obs("a", .ok), obs("b", .critical, "HTTP 500")]), "api").map(\.check) == ["api/b"])
    }

    @Test func worstStateOrdersUnknownBelowCritical() {
        #expect([CheckState.ok, .warning].max() == .warning)
        #expect([CheckState.warning, .unknown].max() == .unknown)
        #expect([CheckState.unknown, .critical, .ok].max() == .critical)
    }
}
