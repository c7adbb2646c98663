import BandwidthProbe
import Foundation
import PathwatchTestSupport

/// Two private network namespaces joined by a veth pair whose sending side is shaped with a
/// token bucket: `va` (10.213.0.1, in `sender`) → `vb` (in `receiver`).
///
/// Nothing but the test's own datagrams crosses the pair, so byte counts can be compared
/// exactly: IPv6 is off in both namespaces (no neighbour discovery or MLD), and the peer
/// address has a permanent neighbour entry with a MAC address `vb` does not own, so there is
/// no ARP, and `vb` discards the frames without answering (no ICMP port unreachable).
final class VethLab: Sendable {
    static let interface = "va"
    static let peerAddress = "10.213.0.2"
    /// What `tc` shapes `va` to, and the same figure in bits per second.
    static let shapedRate = "8mbit"
    static let shapedBitsPerSecond = 8_000_000.0

    /// The token bucket's queue: three seconds of the shaped rate, more than the sender's
    /// socket buffer holds (`blast`), so the queue never drops and the sender blocks instead.
    static let queueBytes = 3_000_000

    let sender: String
    let receiver: String

    init(tag: String) throws {
        LeftoverNamespaces.sweep()
        // Unique per process and test, so concurrent runs never share a namespace.
        sender = "pwbw-\(getpid())-\(tag)-s"
        receiver = "pwbw-\(getpid())-\(tag)-r"
        do {
            try Self.shell(
                """
                ip netns add \(sender)
                ip netns add \(receiver)
                for ns in \(sender) \(receiver); do
                    ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
                    ip -n $ns link set lo up
                done
                """)
            try createPair()
        } catch {
            remove()
            throw error
        }
    }

    /// Creates the shaped pair (again, after `deletePair`: the new `va` gets a new ifindex).
    func createPair() throws {
        try Self.shell(
            """
            ip -n \(sender) link add name va type veth peer name vb netns \(receiver)
            ip -n \(sender) addr add 10.213.0.1/30 dev va
            ip -n \(sender) neigh add \(Self.peerAddress) lladdr 02:00:00:00:02:13 dev va nud permanent
            ip -n \(sender) link set va up
            ip -n \(receiver) link set vb up
            tc -n \(sender) qdisc add dev va root tbf rate \(Self.shapedRate) burst 32kbit limit \(Self.queueBytes)
            """)
    }

    /// Deletes `va` (and with it `vb`) and creates the pair again at once.
    func recreatePair() throws {
        try Self.shell("ip -n \(sender) link del va")
        try createPair()
    }

    /// The interface's counters as `/proc/net/dev` inside the sender namespace shows them.
    func procfsCounters() throws -> InterfaceCounters {
        let result = try run(["ip", "netns", "exec", sender, "cat", "/proc/net/dev"])
        guard result.status == 0 else { throw TestFailure("reading /proc/net/dev in \(sender): \(result.stderr)") }
        let readings = try ProcNetDevParser.parse(Array(result.stdout.utf8))
        guard let reading = readings.first(where: { $0.name == Self.interface }) else {
            throw TestFailure("\(Self.interface) missing from /proc/net/dev in \(sender)")
        }
        return reading.counters
    }

    /// Sends 1000-byte UDP datagrams to the peer for `seconds`. The socket blocks while the
    /// token bucket's queue holds its send buffer, so the sender keeps the link saturated
    /// without spinning. Errors (the interface vanishing mid-run) are waited out, not fatal.
    ///
    /// The send buffer is forced to 4 MiB (the kernel doubles it, and counts each datagram at
    /// several times its size): about 1.8 s of the shaped rate queued. With the default buffer
    /// (208 KiB) the queue held 45 ms, and a sender starved for longer than that on a loaded
    /// host left a window 10 % short of the shaped rate.
    func blast(seconds: Double) throws -> ProcessResult {
        let script = """
            import socket, sys, time
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_SNDBUFFORCE", 32), 4 << 20)
            payload = bytes(1000)
            end = time.monotonic() + float(sys.argv[2])
            while time.monotonic() < end:
                try:
                    s.sendto(payload, (sys.argv[1], 9))
                except OSError:
                    time.sleep(0.01)
            """
        return try run(
            ["ip", "netns", "exec", sender, "python3", "-c", script, Self.peerAddress, "\(seconds)"],
            timeout: seconds + 30)
    }

    /// Waits until the token bucket's queue is empty: what the sender queued has all left `va`.
    func waitForEmptyQueue() throws {
        let what = "the token bucket's queue on \(Self.interface) to drain"
        _ = try waitFor(what, timeout: 30, interval: 0.1) { try queueLength() == 0 ? true : nil }
    }

    /// Datagrams waiting in `va`'s queue, as `tc -s` counts them.
    func queueLength() throws -> Int {
        let result = try run(["tc", "-n", sender, "-s", "-j", "qdisc", "show", "dev", Self.interface])
        guard result.status == 0,
            let qdiscs = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        else { throw TestFailure("tc -s -j qdisc show in \(sender): \(result.stderr)") }
        return qdiscs.reduce(0) { $0 + ($1["qlen"] as? Int ?? 0) }
    }

    func remove() {
        _ = try? run(["ip", "netns", "del", sender])
        _ = try? run(["ip", "netns", "del", receiver])
    }

    static func shell(_ script: String) throws {
        let result = try sh(script)
        guard result.status == 0 else { throw TestFailure("setup failed (\(result.status)): \(result.stderr)") }
    }
}
