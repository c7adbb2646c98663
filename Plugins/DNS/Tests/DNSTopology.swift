import Foundation
import PathwatchTestSupport

/// Two network namespaces the test creates: `host`, where the probe or the agent runs, and `isp`,
/// the far side of its uplink, whose address 10.86.0.2 is both the gateway and the resolver.
/// Veth `isp0` (10.86.0.1/24, default route via 10.86.0.2) pairs with `isp1` (10.86.0.2/24).
/// Nothing is routed anywhere else.
final class DNSTopology {
    static let hostAddress = "10.86.0.1"
    static let ispAddress = "10.86.0.2"

    let host: LinkStateNamespace
    let isp: LinkStateNamespace
    let directory: URL
    let resolver: ISPResolver

    init() throws {
        host = try LinkStateNamespace("dn")
        do {
            isp = try LinkStateNamespace("dni")
        } catch {
            host.delete()
            throw error
        }
        do {
            directory = try Unprivileged.makeTemporaryDirectory("pathwatch-dns")
            try host.exec("ip link add isp0 type veth peer name isp1 netns \(isp.name)")
            // The kernel sends a destination at most one ICMP error a second by default: the
            // agent's probes query a stopped resolver several times a second, and a query that
            // got none timed out instead of being refused, on a busy machine more often.
            try isp.exec(
                "ip link set isp1 up; ip addr add \(Self.ispAddress)/24 dev isp1; echo 0 > /proc/sys/net/ipv4/icmp_ratelimit"
            )
            try host.exec(
                """
                ip link set isp0 up
                ip addr add \(Self.hostAddress)/24 dev isp0
                ip route add default via \(Self.ispAddress) dev isp0
                """)
            resolver = ISPResolver(isp: isp, host: host, directory: directory)
        } catch {
            host.delete()
            isp.delete()
            throw error
        }
    }

    /// `dig` in the host namespace, as the probe asks: plain query, no EDNS, one try.
    func dig(_ name: String, _ type: String = "A", server: String = DNSTopology.ispAddress) throws -> DigAnswer {
        let out = try host.exec("dig @\(server) \(name) \(type) +noedns +tries=1 +time=3 || true")
        return DigAnswer(out)
    }

    func delete() {
        resolver.stop()
        host.delete()
        isp.delete()
        TestEnvironment.removeTemporaryDirectory(directory)
    }
}

/// What `dig` printed: status and query time (whole milliseconds), or nil when no answer came.
struct DigAnswer {
    var status: String?
    var milliseconds: Double?
    var answers: [String] = []

    init(_ text: String) {
        for line in text.split(separator: "\n") {
            if let range = line.range(of: "status: ") {
                status = line[range.upperBound...].split(separator: ",").first.map(String.init)
            } else if let range = line.range(of: ";; Query time: ") {
                milliseconds = Double(line[range.upperBound...].split(separator: " ").first ?? "")
            } else if !line.hasPrefix(";"), let last = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).last {
                answers.append(String(last))
            }
        }
    }
}

/// The ISP's resolver, a real one from Debian, in the state a test needs: dnsmasq serving the
/// `test` zone from a hosts file, or giving another address (a hijack), or none (NXDOMAIN);
/// unbound whose upstream refuses (SERVFAIL); dnsmasq behind a relay that holds each query
/// (a slow resolver); or nothing at all (stopped). Each state is in place when `set` returns:
/// `dig` from the host saw it.
final class ISPResolver {
    enum State: Equatable {
        case normal, hijacked, nxdomain, servfail, stopped
        case delayed(milliseconds: Int)
    }

    static let address = "10.0.0.5"
    static let hijackAddress = "10.66.6.6"

    let isp: LinkStateNamespace
    let host: LinkStateNamespace
    let directory: URL
    private var processes: [BackgroundProcess] = []
    private var pids: [Int32] = []

    init(isp: LinkStateNamespace, host: LinkStateNamespace, directory: URL) {
        self.isp = isp
        self.host = host
        self.directory = directory
    }

    /// Replaces the resolver with one in `state`, and returns the instant the old one was gone:
    /// what the agent can see change starts there. Stopping can take seconds of its own (a
    /// process's output is read to its end), which is the fixture's time, not the agent's.
    @discardableResult
    func set(_ state: State) throws -> Date {
        stop()
        let gone = Date()
        let listen = DNSTopology.ispAddress
        switch state {
        case .normal:
            try dnsmasq(hosts: ["\(Self.address) www.test", "10.0.0.25 mail.test"], address: listen, port: 53)
        case .hijacked:
            try dnsmasq(hosts: ["\(Self.hijackAddress) www.test", "10.0.0.25 mail.test"], address: listen, port: 53)
        case .nxdomain: try dnsmasq(hosts: [], address: listen, port: 53)
        case .servfail:
            // dnsmasq with no upstream refuses what it does not know; unbound, forwarding to it,
            // turns the refusal into SERVFAIL, as a recursive resolver whose upstream fails does.
            try dnsmasq(hosts: [], address: "127.0.0.1", port: 5300, local: false)
            try unbound(forwardingTo: "127.0.0.1@5300")
        case .delayed(let milliseconds):
            try dnsmasq(hosts: ["\(Self.address) www.test", "10.0.0.25 mail.test"], address: "127.0.0.1", port: 5353)
            let relay = TestEnvironment.packageRoot.appendingPathComponent("Plugins/DNS/Tests/Fixtures/delay_relay.py")
                .path
            let process = try server([
                "ip", "netns", "exec", isp.name, "python3", relay, listen, "53", "127.0.0.1", "5353", "\(milliseconds)",
            ])
            guard process.waitForLine(timeout: 10, { $0 == "ready" }) != nil else {
                throw TestFailure("relay did not start: \(process.errorOutput)")
            }
        case .stopped: break
        }
        try waitUntilSeen(state)
        return gone
    }

    private func dnsmasq(hosts: [String], address: String, port: Int, local: Bool = true) throws {
        let file = directory.appendingPathComponent("hosts-\(port)")
        try (hosts.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        // dnsmasq reads it as nobody (--user) whoever runs the tests: readable by all, in a
        // folder all may enter, whether or not the agent itself runs unprivileged.
        chmod(directory.path, 0o755)
        chmod(file.path, 0o644)
        var argv = [
            "ip", "netns", "exec", isp.name, "dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv",
            "--no-hosts", "--addn-hosts=\(file.path)", "--listen-address=\(address)", "--bind-interfaces",
            "--port=\(port)",
            "--user=nobody", "--pid-file=", "--log-facility=-", "--cache-size=0",
        ]
        // The zone is dnsmasq's own: a name it does not list does not exist (NXDOMAIN). big.test
        // has a TXT record of three 250-byte strings: more than a plain UDP answer holds.
        if local {
            argv.append("--local=/test/")
            argv.append(
                "--txt-record=big.test,"
                    + ["x", "y", "z"].map { String(repeating: $0, count: 250) }.joined(separator: ","))
        }
        try server(argv)
    }

    private func unbound(forwardingTo upstream: String) throws {
        let config = directory.appendingPathComponent("unbound.conf")
        try """
        server:
            interface: \(DNSTopology.ispAddress)
            port: 53
            do-daemonize: no
            username: ""
            chroot: ""
            pidfile: ""
            use-syslog: no
            logfile: ""
            do-ip6: no
            access-control: 10.86.0.0/24 allow
            module-config: "iterator"
            # Its upstream is dnsmasq on loopback, which unbound by default never asks, and
            # `test.` is a zone it serves empty by default (RFC 6761): neither here.
            do-not-query-localhost: no
            local-zone: "test." nodefault
        forward-zone:
            name: "."
            forward-addr: \(upstream)
        """.write(to: config, atomically: true, encoding: .utf8)
        try server(["ip", "netns", "exec", isp.name, "unbound", "-d", "-c", config.path])
    }

    /// Starts a server as the child of a shell that prints its pid and stays its parent, and
    /// returns the shell. dnsmasq closes every descriptor it inherits as it starts, among them
    /// the socket by which Foundation's Process learns that a child ended; Foundation then waits
    /// for that child on the thread that reaps every other, and every later `run` hangs. The
    /// shell keeps the socket. Servers are stopped with SIGKILL by that pid: a child of the test
    /// process inherits a mask that blocks SIGTERM.
    @discardableResult
    private func server(_ argv: [String]) throws -> BackgroundProcess {
        let command = argv.map { "'\($0)'" }.joined(separator: " ")
        let shell = try BackgroundProcess(["bash", "-c", "\(command) & echo $!; wait $!"])
        processes.append(shell)
        guard let line = shell.waitForLine(timeout: 10, { Int32($0) != nil }), let pid = Int32(line.line) else {
            throw TestFailure("\(argv.joined(separator: " ")) did not start: \(shell.errorOutput)")
        }
        pids.append(pid)
        return shell
    }

    /// Waits until `dig` from the host sees the state: the servers are up and answering so.
    private func waitUntilSeen(_ state: State) throws {
        let expected: String? =
            switch state {
            case .normal, .hijacked, .delayed: "NOERROR"
            case .nxdomain: "NXDOMAIN"
            case .servfail: "SERVFAIL"
            case .stopped: nil
            }
        let seen = waitUntil(timeout: 20) {
            guard
                let answer = try? host.exec(
                    "dig @\(DNSTopology.ispAddress) www.test A +noedns +tries=1 +time=1 || true")
            else { return false }
            return DigAnswer(answer).status == expected
        }
        guard seen else {
            throw TestFailure(
                "resolver state \(state) not seen: \(processes.map(\.errorOutput).joined(separator: "\n"))")
        }
    }

    func stop() {
        for pid in pids { kill(pid, SIGKILL) }
        for process in processes { _ = process.stop() }
        processes.removeAll()
        pids.removeAll()
    }
}
