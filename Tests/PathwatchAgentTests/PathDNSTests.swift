import CPathwatchProbe
import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// The DNS verdict in the path (contract §7 `dns`): resolvers that fail make `path.internet`
/// limited with a description saying DNS is what broke, even when the check URL answers by
/// address; endpoints that cannot resolve stay silent, and the DNS probe's resolvers check is the
/// one alert.
@Suite struct PathDNSTests {
    var book = CheckBook(agentName: "test-host")
    var clock: Int64 = 1_700_000_000_000

    init() {
        book.probeOrder = ["link", "net", "dns", "api"]
        book.policies["link"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "linkstate")
        book.policies["net"] = ProbePolicy(
            failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "connectivity", sampleOnPathChange: true)
        book.policies["dns"] = ProbePolicy(
            failAfter: 1, recoverAfter: 1, needsNetwork: true, plugin: "dns", sampleOnPathChange: true)
        book.policies["api"] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: true, plugin: "reachability")
    }

    mutating func apply(_ report: ProbeReport, _ probe: String) -> [ChangeEvent] {
        clock += 1000
        return book.apply(report, probe: probe, at: WallTime(milliseconds: clock))
    }

    static let link = Observation(
        key: "eth0", state: .ok,
        labels: [
            (PW_LABEL_IF_NAME, "eth0"), (PW_LABEL_IF_TYPE, "ethernet"), (PW_LABEL_IF_USABLE, "1"),
            (PW_LABEL_DEFAULT_ROUTE, "100"),
        ])

    static func internet(_ verdict: String) -> Observation {
        Observation(
            key: "internet", state: verdict == "full" ? .ok : .critical, message: verdict,
            labels: [(PW_LABEL_INTERNET, verdict)])
    }

    /// The DNS probe's sample: one check per name, and the resolvers check with the label.
    static func dns(_ verdict: String, names: [String] = ["www.test", "mail.test"]) -> [Observation] {
        let state: CheckState = verdict == "ok" ? .ok : .critical
        return names.map { Observation(key: "10.0.0.53/\($0)", state: state, message: verdict) }
            + [
                Observation(
                    key: "resolvers", state: state, message: verdict,
                    labels: [("resolvers", "10.0.0.53"), (PW_LABEL_DNS, verdict)])
            ]
    }

    @Test mutating func failingResolversLimitThePathAndSayWhy() {
        _ = apply(.sample([Self.link]), "link")
        _ = apply(.sample([Self.internet("full")]), "net")
        _ = apply(.sample(Self.dns("ok")), "dns")
        #expect(book.path.status == .satisfied && book.path.internet == .full)
        #expect(book.path.description == "Connected via Ethernet (eth0)")

        _ = apply(.sample(Self.dns("not-answering")), "dns")
        #expect(book.path.status == .unsatisfied && book.path.internet == .limited)
        #expect(book.path.description == "Connected via Ethernet (eth0), DNS not answering")
        #expect(
            book.records["dns/resolvers"]?.labels.map(\.name) == ["resolvers"],
            "the verdict is a fact, not a published label")

        _ = apply(.sample(Self.dns("failing:SERVFAIL")), "dns")
        #expect(book.path.description == "Connected via Ethernet (eth0), DNS failing: SERVFAIL")

        _ = apply(.sample(Self.dns("ok")), "dns")
        #expect(book.path.status == .satisfied && book.path.description == "Connected via Ethernet (eth0)")
    }

    @Test mutating func dnsAloneDecidesWithoutAConnectivityProbe() {
        _ = apply(.sample([Self.link]), "link")
        _ = apply(.sample(Self.dns("ok")), "dns")
        #expect(
            book.path.status == .satisfied && book.path.internet == nil, "working DNS adds nothing to the link's path")
        _ = apply(.sample(Self.dns("not-answering")), "dns")
        #expect(book.path.status == .unsatisfied && book.path.internet == .limited)
        #expect(book.path.description == "Connected via Ethernet (eth0), DNS not answering")
        #expect(book.path.json["internet"] == "limited")
    }

    @Test mutating func aPortalExplainsFailingDNS() {
        _ = apply(.sample([Self.link]), "link")
        _ = apply(
            .sample([Observation(key: "internet", state: .warning, labels: [(PW_LABEL_INTERNET, "portal")])]), "net")
        _ = apply(.sample(Self.dns("failing:REFUSED")), "dns")
        #expect(
            book.path.internet == .portal && book.path.description == "Connected via Ethernet (eth0), sign-in required")
    }

    @Test func anyWorkingResolverSuffices() {
        #expect(PathSummary.dnsProblem(["ok", "not-answering"]) == nil)
        #expect(PathSummary.dnsProblem(["not-answering", "failing:SERVFAIL"]) == "DNS failing: SERVFAIL")
        #expect(PathSummary.dnsProblem(["not-answering"]) == "DNS not answering")
        #expect(PathSummary.dnsProblem(["unknown"]) == nil)
        #expect(PathSummary.dnsProblem([]) == nil)
    }

    @Test mutating func aDNSFailureIsOneAlertForThePath() {
        _ = apply(.sample([Self.link]), "link")
        _ = apply(.sample([Self.internet("full")]), "net")
        _ = apply(.sample(Self.dns("ok")), "dns")
        _ = apply(.sample([Observation(key: "a", state: .ok), Observation(key: "b", state: .ok)]), "api")

        let dnsEvents = apply(.sample(Self.dns("not-answering")), "dns")
        #expect(
            dnsEvents.map(\.check) == ["dns/resolvers"],
            "the per-name checks are held: the resolvers check says it once")
        #expect(dnsEvents.first?.path.description == "Connected via Ethernet (eth0), DNS not answering")
        #expect(
            book.records["dns/10.0.0.53/www.test"]?.state == .critical, "the document still shows each name's state")
        #expect(book.records["dns/10.0.0.53/www.test"]?.message.hasSuffix("(DNS not answering)") == true)

        let unresolved = Observation(key: "a", state: .critical, message: "DNS: cannot resolve a.test")
        let apiEvents = apply(
            .sample([unresolved, Observation(key: "b", state: .critical, message: "DNS: cannot resolve b.test")]), "api"
        )
        #expect(apiEvents.isEmpty, "endpoints that cannot resolve stay silent")
        #expect(book.records["api/a"]?.message == "DNS: cannot resolve a.test (DNS not answering)")

        let recovery = apply(.sample(Self.dns("ok")), "dns")
        #expect(recovery.map(\.check) == ["dns/resolvers"])
        #expect(book.path.status == .satisfied)
    }

    @Test mutating func aNewLinkHoldsTheDNSVerdictUnknown() {
        _ = apply(.sample([Self.link]), "link")
        _ = apply(.sample(Self.dns("not-answering")), "dns")
        #expect(book.path.status == .unsatisfied)
        let wifi = Observation(
            key: "wlan0", state: .ok,
            labels: [
                (PW_LABEL_IF_NAME, "wlan0"), (PW_LABEL_IF_TYPE, "wifi"), (PW_LABEL_IF_USABLE, "1"),
                (PW_LABEL_DEFAULT_ROUTE, "50"),
            ])
        _ = apply(.event([wifi]), "link")
        #expect(
            book.path.status == .satisfied && book.path.interface == "wlan0",
            "other resolvers may answer behind the new link")
        #expect(
            PathChange.probesToSample(
                before: PathSummary.compute(from: [
                    [PW_LABEL_IF_NAME: "eth0", PW_LABEL_IF_USABLE: "1", PW_LABEL_DEFAULT_ROUTE: "100"]
                ]),
                after: book.path, policies: book.policies
            ).contains("dns"))
    }
}
