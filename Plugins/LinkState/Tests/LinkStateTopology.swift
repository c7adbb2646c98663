import Foundation
import PathwatchTestSupport

/// The network the namespace tests watch: in `ns`, veth `vA` (peer `vB` in `peer`) carrying
/// 10.80.0.1/24 and the default route via 10.80.0.2 metric 100; a bridge `br0` with port `vC`
/// (peer `vD`, both in `ns`) for `kind`; a spare veth `vE` (peer `vF` in `peer`) to delete and
/// re-add. `peer` plays the upstream router.
final class LinkStateTopology {
    let ns: LinkStateNamespace
    let peer: LinkStateNamespace

    init() throws {
        ns = try LinkStateNamespace("ls")
        do {
            peer = try LinkStateNamespace("lsp")
        } catch {
            ns.delete()
            throw error
        }
        do {
            try peer.exec("true")
            try ns.exec(
                """
                ip link add vA type veth peer name vB netns \(peer.name)
                ip link add vE type veth peer name vF netns \(peer.name)
                ip link add br0 type bridge
                ip link add vC type veth peer name vD
                ip link set vC master br0
                """)
            try peer.exec("ip link set vB up; ip link set vF up; ip addr add 10.80.0.2/24 dev vB")
            try ns.exec(
                """
                for i in vA vE br0 vC vD; do ip link set $i up; done
                ip addr add 10.80.0.1/24 dev vA
                ip route add default via 10.80.0.2 dev vA metric 100
                """)
        } catch {
            delete()
            throw error
        }
        // A veth's carrier comes up a moment after `ip link set up` (later still on a busy
        // machine): tests compare the probe's sample with `ip link`, so they start once every
        // link has it. Bounded, and not an error: a test that needs a carrier says so itself.
        _ = waitUntil(timeout: 10) {
            ((try? self.links()) ?? []).allSatisfy { ($0["flags"] as? [String] ?? []).contains("LOWER_UP") }
        }
    }

    /// Re-creates `vA` as the topology had it, bringing its peer up first so `vA` comes up with carrier.
    func recreateUplink() throws {
        try ns.exec("ip link add vA type veth peer name vB netns \(peer.name)")
        try peer.exec("ip link set vB up; ip addr add 10.80.0.2/24 dev vB")
        try ns.exec(
            "ip link set vA up; ip addr add 10.80.0.1/24 dev vA; ip route add default via 10.80.0.2 dev vA metric 100")
    }

    func delete() {
        ns.delete()
        peer.delete()
    }

    /// `ip -j -d link` of `ns` without loopback (ignored by the probe's default config).
    func links() throws -> [[String: Any]] {
        try ns.ipJSON("-d link").filter { $0["ifname"] as? String != "lo" }
    }

    /// The device of the lowest-metric default route, as `ip -j route` reports it.
    func defaultRouteDevice() throws -> String? {
        try ns.ipJSON("route")
            .filter { $0["dst"] as? String == "default" }
            .min { ($0["metric"] as? Int ?? 0) < ($1["metric"] as? Int ?? 0) }?["dev"] as? String
    }
}
