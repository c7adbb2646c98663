import Foundation
import PathwatchTestSupport
import Testing

/// The ping probe through the real agent (`pathwatch once`) in a namespace the test creates,
/// beside iputils' `ping` against the same target at the same time: the same loss, the least
/// round trip within 0.2 ms or 20 %, the average within that or the larger spread the two saw
/// (one reply read late by a descheduled process moves an average of 20 by half a millisecond
/// in a loaded run, and not the least); over IPv4 and IPv6; with unprivileged ICMP sockets (the
/// namespace's `net.ipv4.ping_group_range` admitting root's group) and with raw sockets (that
/// sysctl refusing everyone).
@Suite(.serialized, .onItsOwnThread) struct PingNamespaceTests {
    /// `pinger` (10.84.0.1, fd84::1) and `target` (10.84.0.2, fd84::2) over one veth pair.
    final class Pair {
        let pinger: LinkStateNamespace
        let target: LinkStateNamespace

        init() throws {
            pinger = try LinkStateNamespace("pg")
            do {
                target = try LinkStateNamespace("pgt")
            } catch {
                pinger.delete()
                throw error
            }
            do {
                // The namespaces start with IPv6 off; this pair needs it.
                let ipv6 = "sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0"
                try pinger.exec(ipv6)
                try target.exec(ipv6)
                try pinger.exec("ip link add pg0 type veth peer name pg1 netns \(target.name)")
                try pinger.exec(
                    "ip link set pg0 up; ip addr add 10.84.0.1/24 dev pg0; ip addr add fd84::1/64 dev pg0 nodad")
                try target.exec(
                    "ip link set pg1 up; ip addr add 10.84.0.2/24 dev pg1; ip addr add fd84::2/64 dev pg1 nodad")
            } catch {
                delete()
                throw error
            }
        }

        /// Who may open unprivileged ICMP sockets in the pinger's namespace.
        func allowUnprivileged(_ allowed: Bool) throws {
            try pinger.exec("sysctl -qw net.ipv4.ping_group_range='\(allowed ? "0 2147483647" : "1 0")'")
        }

        func delete() {
            pinger.delete()
            target.delete()
        }
    }

    struct Summary: CustomStringConvertible {
        var sent: Int
        var received: Int
        var average: Double?
        var least: Double?
        /// iputils' mdev; the probe's jitter.
        var spread: Double?
        var loss: Double { sent == 0 ? 100 : Double(sent - received) / Double(sent) * 100 }
        var description: String {
            func text(_ value: Double?) -> String { value.map { String($0) } ?? "-" }
            return "\(received)/\(sent) min \(text(least)) avg \(text(average)) spread \(text(spread)) ms"
        }

        /// Round trips measured by `self` agree with `reference`'s, measured at the same time.
        func expectAgreement(with reference: Summary, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let a = try #require(average, sourceLocation: sourceLocation)
            let b = try #require(reference.average, sourceLocation: sourceLocation)
            let x = try #require(least, sourceLocation: sourceLocation)
            let y = try #require(reference.least, sourceLocation: sourceLocation)
            #expect(
                abs(x - y) <= max(0.2, 0.2 * y), "least round trip: pathwatch \(x) ms, iputils \(y) ms",
                sourceLocation: sourceLocation)
            let allowance = max(0.2, 0.2 * b, spread ?? 0, reference.spread ?? 0)
            #expect(
                abs(a - b) <= allowance, "average round trip: pathwatch \(self), iputils \(reference)",
                sourceLocation: sourceLocation)
        }
    }

    static var iputilsMissing: Bool { (try? run(["sh", "-c", "command -v ping"]))?.status != 0 }
    static let enabled = TestEnvironment.canUseNamespaces && !iputilsMissing
    static let why = "needs root, namespace support and iputils ping (make test-deps installs iputils-ping)"

    /// Starts iputils ping in the pinger's namespace; its summary is read when it exits.
    func startReference(_ pair: Pair, host: String, count: Int, interval: String) throws -> BackgroundProcess {
        try BackgroundProcess([
            "ip", "netns", "exec", pair.pinger.name, "ping", "-n", "-q", "-c", String(count), "-i", interval, "-W", "1",
            "-w", "20", host,
        ])
    }

    /// "20 packets transmitted, 20 received, … 0% packet loss" and "rtt min/avg/max/mdev = a/b/c/d ms".
    /// The lines themselves are waited for, not ping's exit: its output is read on another
    /// thread, so under load ping can be seen to have exited before its last lines are read.
    func referenceSummary(_ process: BackgroundProcess) throws -> Summary {
        guard let (_, counts) = process.waitForLine(timeout: 30, { $0.contains("packets transmitted") }) else {
            throw TestFailure("no summary from ping: \(process.outputLines) \(process.errorOutput)")
        }
        let numbers = counts.split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        // With any reply, the round-trip line follows the counts.
        let rttLine = numbers[1] > 0 ? process.waitForLine(timeout: 5, { $0.hasPrefix("rtt ") })?.line : nil
        var summary = Summary(sent: numbers[0], received: numbers[1])
        if let rtt = rttLine, let values = rtt.split(separator: "=").last {
            let fields = values.trimmingCharacters(in: .whitespaces).split(separator: " ")[0].split(separator: "/").map
            { Double($0) }
            if fields.count == 4 {
                (summary.least, summary.average, summary.spread) = (fields[0], fields[1], fields[3])
            }
        }
        return summary
    }

    /// `pathwatch once` with one ping target per host; returns each check by name.
    /// With `asNobody`, the agent runs as uid and gid 65534 with no other groups, as an agent
    /// without privileges would.
    func pathwatchOnce(
        _ pair: Pair, hosts: [(name: String, host: String)], count: Int, interval: String, socket: String,
        asNobody: Bool = false
    ) throws -> [String: [String: Any]] {
        let directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-ping")
        defer { TestEnvironment.removeTemporaryDirectory(directory) }
        if asNobody { chmod(directory.path, 0o755) }
        let targets = hosts.map {
            #"{"name": "\#($0.name)", "host": "\#($0.host)", "count": \#(count), "interval": "\#(interval)", "timeout": "1s", "socket": "\#(socket)"}"#
        }
        let config = try writeConfig(
            """
            {"agent": {"name": "ping-test", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "state_dir": "\(directory.path)/state"},
             "probes": [{"id": "ping", "plugin": "ping", "interval": "30s", "config": {"targets": [\(targets.joined(separator: ","))]}}],
             "sinks": []}
            """, in: directory)
        chmod(config.path, 0o644)
        let user = asNobody ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        let result = try run(
            ["ip", "netns", "exec", pair.pinger.name] + user + [
                TestEnvironment.pathwatchBinary.path, "once", "--config", config.path, "--format", "json",
            ])
        guard let document = try? parseJSONObject(result.stdout) else {
            throw TestFailure("pathwatch once printed no document (status \(result.status)): \(result.stderr)")
        }
        let checks = document["checks"] as? [[String: Any]] ?? []
        return Dictionary(
            uniqueKeysWithValues: checks.compactMap { check in
                (check["id"] as? String).map { (String($0.dropFirst("ping/".count)), check) }
            })
    }

    /// Both tools at once against `host`, again while iputils' own round trips spread over more
    /// than a millisecond (four tries at most). On a veth pair a round trip takes some 50 µs: a
    /// spread that wide says the machine held both tools up (a loaded host stalls one ping for
    /// half a second), and round trips taken at slightly different moments cannot be compared.
    func measureBoth(
        _ pair: Pair, name: String, host: String, count: Int, socket: String, asNobody: Bool = false
    ) throws -> (checks: [String: [String: Any]], reference: Summary) {
        var attempt = 1
        while true {
            let reference = try startReference(pair, host: host, count: count, interval: "0.05")
            let checks = try pathwatchOnce(
                pair, hosts: [(name, host)], count: count, interval: "50ms", socket: socket, asNobody: asNobody)
            let expected = try referenceSummary(reference)
            if (expected.spread ?? 0) <= 1 || attempt == 4 { return (checks, expected) }
            print("ping \(name): iputils' round trips spread \(expected.spread ?? 0) ms, the machine was busy; again")
            attempt += 1
        }
    }

    func summary(of check: [String: Any]?) -> Summary {
        let metrics = check?["metrics"] as? [String: Double] ?? [:]
        return Summary(
            sent: Int(metrics["sent"] ?? 0), received: Int(metrics["received"] ?? 0),
            average: metrics["rtt_avg_ms"], least: metrics["rtt_min_ms"], spread: metrics["jitter_ms"])
    }

    /// Both tools at once against the same hosts; the round trips and losses must agree.
    func compare(socket: String, unprivilegedAllowed: Bool) throws {
        let pair = try Pair()
        defer { pair.delete() }
        try pair.allowUnprivileged(unprivilegedAllowed)
        let count = 20
        for (name, host) in [("v4", "10.84.0.2"), ("v6", "fd84::2")] {
            let (checks, expected) = try measureBoth(pair, name: name, host: host, count: count, socket: socket)
            let check = checks[name]
            let ours = summary(of: check)
            print("ping \(name) over \(socket) sockets: pathwatch \(ours), iputils \(expected)")
            #expect(check?["state"] as? String == "ok", "\(String(describing: check))")
            #expect(
                (check?["labels"] as? [String: String])?["socket"]
                    == (socket == "auto" ? (unprivilegedAllowed ? "dgram" : "raw") : socket))
            #expect((check?["labels"] as? [String: String])?["family"] == (name == "v6" ? "ipv6" : "ipv4"))
            #expect(ours.sent == count && ours.loss == expected.loss, "loss: pathwatch \(ours), iputils \(expected)")
            try ours.expectAgreement(with: expected)
            let a = try #require(ours.average)
            let metrics = check?["metrics"] as? [String: Double] ?? [:]
            #expect(metrics["rtt_min_ms"]! <= a && a <= metrics["rtt_max_ms"]! && metrics["jitter_ms"]! >= 0)
        }
    }

    @Test(.enabled(if: enabled, Comment(rawValue: why)))
    func unprivilegedSocketsAgreeWithIputils() throws {
        try compare(socket: "dgram", unprivilegedAllowed: true)
    }

    @Test(.enabled(if: enabled, Comment(rawValue: why)))
    func rawSocketsAgreeWithIputils() throws {
        try compare(socket: "raw", unprivilegedAllowed: false)
    }

    @Test(.enabled(if: enabled, Comment(rawValue: why)))
    func autoFallsBackToRawWhenUnprivilegedSocketsAreRefused() throws {
        try compare(socket: "auto", unprivilegedAllowed: false)
    }

    /// Products and configuration readable by an unprivileged user (not so when the checkout
    /// lives in a private folder).
    static var nobodyCanRun: Bool {
        enabled
            && (try? run([
                "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "test", "-x",
                TestEnvironment.pathwatchBinary.path,
            ]))?.status == 0
    }

    @Test(
        .enabled(
            if: nobodyCanRun, Comment(rawValue: "\(why); and setpriv, with the build products readable by uid 65534")))
    func anAgentWithoutPrivilegesUsesUnprivilegedSocketsOnlyWhereTheSysctlAllows() throws {
        let pair = try Pair()
        defer { pair.delete() }
        try pair.allowUnprivileged(true)
        for (name, host) in [("v4", "10.84.0.2"), ("v6", "fd84::2")] {
            let (checks, expected) = try measureBoth(
                pair, name: name, host: host, count: 10, socket: "auto", asNobody: true)
            let ours = summary(of: checks[name])
            print("ping \(name) as uid 65534: pathwatch \(ours), iputils \(expected)")
            #expect((checks[name]?["labels"] as? [String: String])?["socket"] == "dgram")
            #expect(ours.loss == expected.loss && ours.sent == 10, "pathwatch \(ours), iputils \(expected)")
            try ours.expectAgreement(with: expected)
        }
        // Refused by the sysctl, and no raw socket without root: unknown, saying both.
        try pair.allowUnprivileged(false)
        let refused = try pathwatchOnce(
            pair, hosts: [("v4", "10.84.0.2")], count: 1, interval: "50ms", socket: "auto", asNobody: true)
        let message = refused["v4"]?["message"] as? String ?? ""
        #expect(refused["v4"]?["state"] as? String == "unknown")
        #expect(
            message.contains("the agent's group is 65534") && message.contains("raw: operation not permitted"),
            "\(message)")
    }

    @Test(.enabled(if: enabled, Comment(rawValue: why)))
    func aSilentTargetIsTotalLossForBoth() throws {
        let pair = try Pair()
        defer { pair.delete() }
        try pair.allowUnprivileged(true)
        // The target keeps its link but stops answering: its addresses are gone.
        try pair.target.exec("ip addr flush dev pg1")
        for (name, host) in [("v4", "10.84.0.2"), ("v6", "fd84::2")] {
            let reference = try startReference(pair, host: host, count: 5, interval: "0.05")
            let checks = try pathwatchOnce(pair, hosts: [(name, host)], count: 5, interval: "50ms", socket: "dgram")
            let expected = try referenceSummary(reference)
            let ours = summary(of: checks[name])
            #expect(expected.loss == 100 && ours.loss == 100, "pathwatch \(ours), iputils \(expected)")
            #expect(checks[name]?["state"] as? String == "critical")
            #expect(
                (checks[name]?["message"] as? String)?.hasPrefix("no reply: 5 sent to \(host), 0 received") == true,
                "\(String(describing: checks[name]?["message"]))")
        }
    }

    @Test(.enabled(if: enabled, Comment(rawValue: why)))
    func refusedSocketsMakeTheCheckUnknownAndSayWhy() throws {
        let pair = try Pair()
        defer { pair.delete() }
        try pair.allowUnprivileged(false)
        let checks = try pathwatchOnce(pair, hosts: [("v4", "10.84.0.2")], count: 1, interval: "50ms", socket: "dgram")
        #expect(checks["v4"]?["state"] as? String == "unknown")
        #expect(
            (checks["v4"]?["message"] as? String)?.contains(#"net.ipv4.ping_group_range is "1 0""#) == true,
            "\(String(describing: checks["v4"]?["message"]))")
    }
}
