import PathwatchProbeKit
import Testing

@testable import DNSProbe

/// The config as contract §7 describes it: defaults, and every refusal with its JSON path.
@Suite struct DNSConfigTests {
    @Test func defaultsAreTheHostsOwnResolvers() throws {
        let probe = try ProbeDriver.make(#"{"queries": [{"name": "www.example.com"}]}"#)
        #expect(probe.useHostResolvers && probe.listed.isEmpty && probe.affectsPath)
        #expect(
            probe.queries.first?.type == .A && probe.queries.first?.rcode == 0 && probe.queries.first?.expect == nil)
        #expect(probe.warnLatency == .milliseconds(200) && probe.critLatency == .seconds(1))
        #expect(probe.settings.timeout == .seconds(2) && probe.settings.tries == 2 && probe.settings.tcp == .fallback)
    }

    @Test func listedResolversDoNotDecideThePathUnlessTold() throws {
        let listed = try ProbeDriver.make(
            #"{"resolvers": ["10.0.0.53", "[2001:db8::53]:5353"], "queries": [{"name": "a.test"}]}"#)
        #expect(!listed.useHostResolvers && !listed.affectsPath)
        #expect(listed.listed.map(\.key) == ["10.0.0.53", "[2001:db8::53]:5353"])
        let told = try ProbeDriver.make(
            #"{"resolvers": ["10.0.0.53"], "affects_path": true, "queries": [{"name": "a.test"}]}"#)
        #expect(told.affectsPath)
    }

    @Test func aNameAskedForSeveralTypesHasACheckPerType() throws {
        let probe = try ProbeDriver.make(
            #"""
            {"queries": [{"name": "a.test", "type": "A"}, {"name": "a.test", "type": "aaaa"}, {"name": "b.test", "type": "MX"},
                         {"name": "10.0.0.5", "type": "PTR"}, {"name": "2001:db8::1", "type": "PTR"}]}
            """#)
        #expect(probe.queries.map(\.key) == ["a.test/A", "a.test/AAAA", "b.test", "10.0.0.5", "2001:db8::1"])
        #expect(probe.queries[3].queryName == "5.0.0.10.in-addr.arpa")
        #expect(
            probe.queries[4].queryName == "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa")
    }

    @Test func expectedAnswersAreReadInTheFormAnswersTake() throws {
        let probe = try ProbeDriver.make(
            #"""
            {"queries": [{"name": "a.test", "type": "AAAA", "expect": ["2001:DB8:0::1"]},
                         {"name": "b.test", "type": "CNAME", "expect": ["Target.Example."]},
                         {"name": "c.test", "type": "MX", "expect": ["10 Mail.Example.com."]}]}
            """#)
        #expect(
            probe.queries.map { $0.expect ?? [] } == [["2001:db8::1"], ["target.example"], ["10 mail.example.com"]])
    }

    @Test(arguments: [
        (#"{"queries": []}"#, "queries: expected at least one query"),
        (
            #"{"queries": [{"name": "a.test"}], "resolvers": []}"#,
            "resolvers: expected at least one resolver (or leave it out for the host's own)"
        ),
        (
            #"{"queries": [{"name": "a.test"}], "resolvers": ["dns.example"]}"#,
            #"resolvers[0]: expected "system" or an IPv4 or IPv6 address with an optional port ("10.0.0.53", "[2001:db8::53]:5353")"#
        ),
        (
            #"{"queries": [{"name": "a.test"}], "resolvers": ["10.0.0.1", "10.0.0.1:53"]}"#,
            "resolvers[1]: 10.0.0.1:53 is listed twice"
        ),
        (
            #"{"queries": [{"name": "a.test"}], "resolvers": ["10.0.0.1:0"]}"#,
            #"resolvers[0]: expected "system" or an IPv4 or IPv6 address with an optional port ("10.0.0.53", "[2001:db8::53]:5353")"#
        ),
        (
            #"{"queries": [{"name": "a.test", "type": "SRV"}]}"#,
            "queries[0].type: expected one of A, AAAA, CNAME, MX, TXT, NS, SOA, PTR"
        ),
        (#"{"queries": [{"name": ""}]}"#, "queries[0].name: expected a domain name of 1 to 190 characters"),
        (
            #"{"queries": [{"name": "a.test"}, {"name": "a/b"}]}"#,
            #"queries[1].name: must not contain spaces or "/" (it becomes part of the check id <probe>/<resolver>/<name>)"#
        ),
        (
            #"{"queries": [{"name": "a.test"}, {"name": "A.test", "type": "A"}]}"#,
            "queries[1].name: A.test A is also queries[0]"
        ),
        (
            #"{"queries": [{"name": "a.test", "expect": ["10.0.0.5", "nope"]}]}"#,
            #"queries[0].expect[1]: "nope" cannot be an answer of type A"#
        ),
        (
            #"{"queries": [{"name": "a.test", "expect": []}]}"#,
            "queries[0].expect: expected at least one answer (or leave it out)"
        ),
        (
            #"{"queries": [{"name": "a.test", "rcode": "BROKEN"}]}"#,
            "queries[0].rcode: expected a response code name (NOERROR, NXDOMAIN, SERVFAIL, REFUSED, …)"
        ),
        (
            #"{"queries": [{"name": "a.test", "rcode": "NXDOMAIN", "expect": ["10.0.0.5"]}]}"#,
            "queries[0].expect: answers can only be expected with rcode NOERROR"
        ),
        (
            #"{"queries": [{"name": "a.test"}], "warn_latency": "2s", "crit_latency": "1s"}"#,
            "warn_latency: must not exceed crit_latency (1s)"
        ),
        (#"{"queries": [{"name": "a.test"}], "tries": 9}"#, "tries: expected 1 to 5"),
        (#"{"queries": [{"name": "a.test"}], "tcp": "sometimes"}"#, "tcp"),
        (#"{"queries": [{"name": "a.test", "typo": 1}]}"#, "queries[0].typo"),
        (#"{"queries": [{"name": "a.test"}], "resolver": ["10.0.0.1"]}"#, "resolver"),
    ])
    func refusals(config: String, message: String) {
        let refusal = ProbeDriver.refusal(config)
        #expect(refusal?.hasPrefix(message) == true, "\(refusal ?? "accepted")")
    }
}
