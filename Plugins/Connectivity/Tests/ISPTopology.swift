import Foundation
import PathwatchTestSupport

/// Two network namespaces the test creates: `host`, where the agent runs, and `isp`, the far
/// side of its uplink. Veth `isp0` (10.82.0.1/24, default route via 10.82.0.2) in `host` pairs
/// with `isp1` (10.82.0.2/24) in `isp`, where the fixture server answers on 10.82.0.2:8080 as the
/// internet or as a captive portal. Nothing is routed anywhere else.
final class ISPTopology {
    static let hostAddress = "10.82.0.1"
    static let ispAddress = "10.82.0.2"
    static let port = 8080

    let host: LinkStateNamespace
    let isp: LinkStateNamespace

    init() throws {
        host = try LinkStateNamespace("cn")
        do {
            isp = try LinkStateNamespace("cni")
        } catch {
            host.delete()
            throw error
        }
        do {
            try host.exec("ip link add isp0 type veth peer name isp1 netns \(isp.name)")
            try isp.exec("ip link set isp1 up; ip addr add \(Self.ispAddress)/24 dev isp1")
            try host.exec(
                """
                ip link set isp0 up
                ip addr add \(Self.hostAddress)/24 dev isp0
                ip route add default via \(Self.ispAddress) dev isp0
                """)
        } catch {
            delete()
            throw error
        }
    }

    /// The uplink's carrier, taken away and given back from the ISP's side (the host keeps its
    /// addresses and routes, as when a cable is pulled).
    func carrier(_ on: Bool) throws { try isp.ip("link set isp1 \(on ? "up" : "down")") }

    /// The ISP stops answering while the host keeps carrier and route: its address goes away,
    /// so packets to it are dropped without a reply. `true` brings it back.
    func ispAnswers(_ on: Bool) throws { try isp.ip("addr \(on ? "add" : "del") \(Self.ispAddress)/24 dev isp1") }

    func startServer(in directory: URL) throws -> PortalServer {
        try PortalServer(in: directory, host: Self.ispAddress, port: Self.port, netns: isp.name)
    }

    func delete() {
        host.delete()
        isp.delete()
    }
}

/// The agent under `pathwatch run` in a namespace, with its status file and change events.
final class NamespacedAgent {
    let process: BackgroundProcess
    let statusFile: URL

    init(config: URL, namespace: LinkStateNamespace, directory: URL) throws {
        statusFile = directory.appendingPathComponent("status.json")
        process = try BackgroundProcess(
            [
                "ip", "netns", "exec", namespace.name, TestEnvironment.pathwatchBinary.path, "run", "--config",
                config.path,
            ])
    }

    /// The latest status document, once the file sink has written one.
    func status() -> [String: Any]? {
        guard let text = try? String(contentsOf: statusFile, encoding: .utf8) else { return nil }
        return try? parseJSONObject(text)
    }

    var path: [String: Any] { status()?["path"] as? [String: Any] ?? [:] }

    func check(_ id: String) -> [String: Any]? {
        (status()?["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// The change events printed on the JSON stdout sink so far.
    func changes() -> [[String: Any]] {
        process.outputLines.compactMap { try? parseJSONObject($0) }.filter { $0["type"] as? String == "change" }
    }

    /// Polls `condition` until it holds or `timeout` seconds pass; returns the seconds it took.
    func waitFor(timeout: Double, _ condition: () -> Bool) -> Double? {
        let start = Date()
        return waitUntil(timeout: timeout, interval: 0.005, condition) ? Date().timeIntervalSince(start) : nil
    }

    func stop() { process.stop() }
}
