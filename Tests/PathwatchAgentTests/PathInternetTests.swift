import CPathwatchProbe
import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// `path.internet` (contract §3, §7): what a connectivity probe found behind the link decides whether
/// the path is satisfied, what it says, which checks stay silent, and which probes the agent
/// samples at once when the path changes.
@Suite struct PathInternetTests {
    var book = CheckBook(agentName: "test-host")
    var clock: Int64 = 1_700_000_000_000

    init() {
        book.probeOrder = ["link", "net", "api", "disk"]
        book.policies["link"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "linkstate")
        book.policies["net"] = ProbePolicy(
            failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "connectivity", sampleOnPathChange: true)
        book.policies["api"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: true, plugin: "reachability")
        book.policies["disk"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "disk")
    }

    mutating func apply(_ report: ProbeReport, _ probe: String) -> [ChangeEvent] {
        clock += 1000
        return book.apply(report, probe: probe, at: WallTime(milliseconds: clock))
    }

    func link(_ usable: Bool) -> Observation {
        var labels: [(name: String, value: String)] = [
            (PW_LABEL_IF_NAME, "wlan0"), (PW_LABEL_IF_TYPE, "wifi"), (PW_LABEL_IF_USABLE, usable ? "1" : "0"),
        ]
        if usable { labels.append((PW_LABEL_DEFAULT_ROUTE, "600")) }
        return Observation(key: "wlan0", state: usable ? .ok : .critical, labels: labels)
    }

    func internet(_ verdict: String) -> Observation {
        let state: CheckState = ["full": .ok, "portal": .warning, "limited": .critical][verdict] ?? .unknown
        return Observation(
            key: "internet", state: state, message: verdict,
            labels: [("endpoint", "http://x"), (PW_LABEL_INTERNET, verdict)])
    }

    @Test mutating func statusIsSatisfiedOnlyWithFullInternet() {
        _ = apply(.sample([link(true)]), "link")
        #expect(book.path.status == .satisfied && book.path.internet == nil, "no connectivity probe: the link decides")
        #expect(book.path.json["internet"] == nil)
        _ = apply(.sample([internet("full")]), "net")
        #expect(book.path.status == .satisfied && book.path.internet == .full)
        #expect(book.path.description == "Connected via Wi-Fi (wlan0)")
        #expect(book.path.json["internet"] == "full")
        _ = apply(.sample([internet("portal")]), "net")
        #expect(book.path.status == .unsatisfied && book.path.internet == .portal)
        #expect(book.path.description == "Connected via Wi-Fi (wlan0), sign-in required")
        #expect(book.path.type == "wifi" && book.path.interface == "wlan0")
        _ = apply(.sample([internet("limited")]), "net")
        #expect(book.path.status == .unsatisfied)
        #expect(book.path.description == "Connected via Wi-Fi (wlan0), no internet access")
        // The internet check's label is a fact for the host, not a published label.
        #expect(book.records["net/internet"]?.labels.map(\.name) == ["endpoint"])
        _ = apply(.event([link(false)]), "link")
        // Nothing is known of what lies behind a link that is gone, nor of the next one, until checked.
        #expect(book.path.description == "Offline - No internet connection" && book.path.internet == .unknown)
        _ = apply(.event([link(true)]), "link")
        #expect(
            book.path.status == .unsatisfied
                && book.path.description == "Connected via Wi-Fi (wlan0), internet access unknown")
        _ = apply(.sample([internet("full")]), "net")
        #expect(book.path.status == .satisfied)
    }

    @Test mutating func theFirstLinkPictureKeepsAVerdictThatCameBeforeIt() {
        _ = apply(.sample([internet("full")]), "net")
        #expect(book.path.status == .unknown && book.path.internet == .full)
        _ = apply(.sample([link(true)]), "link")
        #expect(book.path.status == .satisfied && book.path.internet == .full)
    }

    @Test mutating func aFailedConnectivityProbeLeavesTheInternetUnknownNotFull() {
        _ = apply(.sample([link(true)]), "link")
        _ = apply(.sample([internet("full")]), "net")
        _ = apply(.failure("timed out after 5s"), "net")
        #expect(book.path.internet == .unknown && book.path.status == .unsatisfied)
        #expect(book.path.description == "Connected via Wi-Fi (wlan0), internet access unknown")
    }

    @Test mutating func endpointsStaySilentWhileLimitedOrBehindAPortal() {
        _ = apply(.sample([link(true)]), "link")
        _ = apply(.sample([internet("full")]), "net")
        _ = apply(.sample([Observation(key: "a", state: .ok)]), "api")
        // One alert: the internet check's own.
        let limited = apply(.sample([internet("limited")]), "net")
        #expect(limited.map(\.check) == ["net/internet"])
        #expect(limited.first?.path.description == "Connected via Wi-Fi (wlan0), no internet access")
        #expect(apply(.sample([Observation(key: "a", state: .critical, message: "timed out")]), "api").isEmpty)
        #expect(book.records["api/a"]?.message == "timed out (no internet access)")
        // A disk is not behind the network: it still alerts.
        _ = apply(.sample([Observation(key: "/", state: .ok)]), "disk")
        #expect(apply(.sample([Observation(key: "/", state: .critical)]), "disk").count == 1)
        let portal = apply(.sample([internet("portal")]), "net")
        #expect(portal.map(\.check) == ["net/internet"] && portal.first?.to == .warning)
        #expect(apply(.sample([Observation(key: "a", state: .critical, message: "HTTP 302")]), "api").isEmpty)
        #expect(book.records["api/a"]?.message == "HTTP 302 (sign-in required)")
        // Full again: the endpoint that recovered says nothing; it never announced its failure.
        #expect(apply(.sample([internet("full")]), "net").map(\.check) == ["net/internet"])
        #expect(apply(.sample([Observation(key: "a", state: .ok)]), "api").isEmpty)
    }

    @Test mutating func theInternetCheckIsSilentWhileTheLinkItselfIsDown() {
        _ = apply(.sample([link(true)]), "link")
        _ = apply(.sample([internet("full")]), "net")
        #expect(apply(.event([link(false)]), "link").map(\.check) == ["link/wlan0"])
        #expect(book.path.internet == .unknown)
        #expect(apply(.sample([internet("limited")]), "net").isEmpty, "the link's event is the alert")
        #expect(book.records["net/internet"]?.message == "limited (host offline)")
        _ = apply(.event([link(true)]), "link")
        #expect(apply(.sample([internet("full")]), "net").isEmpty, "never announced critical: nothing to recover from")
    }

    /// A link probe that watches the links and reports none (only ignored ones exist) says the
    /// host is offline; with no link probe at all, the path stays unmonitored.
    @Test func aLinkProbeWithNoInterfacesMeansOffline() {
        #expect(PathSummary.compute(from: [[PW_LABEL_LINK_MONITOR: "1"]]) == .offline)
        #expect(PathSummary.compute(from: []) == .unmonitored)
        let up: [String: String] = [PW_LABEL_IF_NAME: "eth0", PW_LABEL_IF_USABLE: "1", PW_LABEL_DEFAULT_ROUTE: "0"]
        #expect(PathSummary.compute(from: [[PW_LABEL_LINK_MONITOR: "1"], up]).status == .satisfied)
    }

    @Test func pathChangesSampleTheRightProbes() {
        let policies = [
            "net": ProbePolicy(
                failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "connectivity", sampleOnPathChange: true),
            "api": ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: true, plugin: "reachability"),
            "disk": ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "disk"),
        ]
        func path(_ facts: [[String: String]]) -> PathSummary { PathSummary.compute(from: facts) }
        let up: [String: String] = [PW_LABEL_IF_NAME: "eth0", PW_LABEL_IF_USABLE: "1", PW_LABEL_DEFAULT_ROUTE: "0"]
        let down: [String: String] = [PW_LABEL_IF_NAME: "eth0", PW_LABEL_IF_USABLE: "0"]
        let full = [PW_LABEL_INTERNET: "full"]
        let limited = [PW_LABEL_INTERNET: "limited"]
        // Start-up: every probe samples then anyway.
        #expect(PathChange.probesToSample(before: .unmonitored, after: path([up]), policies: policies).isEmpty)
        // The link goes down: nothing to check behind it, nothing to retry.
        #expect(
            PathChange.probesToSample(before: path([up, full]), after: path([down, full]), policies: policies).isEmpty)
        // The link returns while the last verdict was limited: re-check; still unsatisfied.
        #expect(
            PathChange.probesToSample(before: path([down, limited]), after: path([up, limited]), policies: policies)
                == ["net"])
        // The internet is full again: every network-dependent probe at once.
        #expect(
            PathChange.probesToSample(before: path([up, limited]), after: path([up, full]), policies: policies) == [
                "api"
            ])
        // Without a connectivity probe the link returning is the recovery.
        #expect(
            PathChange.probesToSample(before: path([down]), after: path([up]), policies: policies) == ["api", "net"])
        // Another interface takes over: check behind it.
        let wifi: [String: String] = [PW_LABEL_IF_NAME: "wlan0", PW_LABEL_IF_USABLE: "1", PW_LABEL_DEFAULT_ROUTE: "0"]
        #expect(
            PathChange.probesToSample(before: path([up, full]), after: path([wifi, full]), policies: policies) == [
                "net"
            ])
        // Nothing changed: nothing sampled.
        #expect(
            PathChange.probesToSample(before: path([up, full]), after: path([up, full]), policies: policies).isEmpty)
    }
}
