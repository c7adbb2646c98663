import PathwatchJSON
import PathwatchProbeKit

/// ICMP echo to each target, over IPv4 or IPv6, every target at once: round-trip times, jitter
/// and loss — the quality of the connection, not just its presence. One check per target.
final class PingProbe: Probe {
    typealias Config = PingConfig

    static let name = "ping"
    static let version = "1.0.0"
    static let summary =
        "ICMP echo over IPv4 and IPv6 (unprivileged ICMP sockets, or raw as root): round-trip min/avg/max, jitter and loss per target."
    static var flags: ProbeFlags { [.needsNetwork] }

    let targets: [PingTarget]

    init(config: PingConfig) throws {
        guard !config.targets.isEmpty else { throw ProbeConfigError("targets", "expected at least one target") }
        var seen: [String: Int] = [:]
        var targets: [PingTarget] = []
        for (index, target) in config.targets.enumerated() {
            let path = JSONPath([.key("targets"), .index(index)])
            if let first = seen[target.name] {
                throw ProbeConfigError(
                    path: path.appending("name"),
                    message: "duplicate target name \"\(target.name)\" (also targets[\(first)])")
            }
            seen[target.name] = index
            targets.append(try PingTarget(target, at: path))
        }
        self.targets = targets
    }

    func sample(into emitter: Emitter) throws {
        var sessions: [PingSession] = []
        for target in targets {
            guard let address = SocketAddress.resolve(target.host, version: target.ipVersion) else {
                emitter.emit(observation(target, state: .critical, message: "DNS: cannot resolve \(target.host)"))
                continue
            }
            let v6 = address.isIPv6
            switch SocketOpening.open(target.socket, v6: v6) {
            case .success(let socket):
                sessions.append(PingSession(target: target, address: address, socket: socket))
            case .failure(let refusal):
                // The agent's own lack of a permission says nothing about the target.
                emitter.emit(
                    observation(target, state: .unknown, message: refusal.message, family: v6 ? "ipv6" : "ipv4"))
            }
        }
        // The round fits inside the sample's deadline, less a margin to report in.
        let end = Deadline.current.map { MonotonicClock.nowNanoseconds() + $0.allowing(.seconds(86_400)).nanoseconds }
        PingRound.run(sessions, end: end)
        for session in sessions {
            let verdict = PingVerdict(
                target: session.target, address: session.address,
                statistics: PingStatistics(sent: session.sent, rtts: session.rtts), sendError: session.sendError,
                cutShort: session.cutShort)
            emitter.emit(
                observation(
                    session.target, state: verdict.state, message: verdict.message, metrics: verdict.metrics,
                    family: session.socket.v6 ? "ipv6" : "ipv4", socket: session.socket.kind.rawValue))
        }
    }

    private func observation(
        _ target: PingTarget, state: CheckState, message: String, metrics: [(name: String, value: Double)] = [],
        family: String? = nil, socket: String? = nil
    ) -> Observation {
        var labels: [(name: String, value: String)] = [("host", target.host)]
        if let family { labels.append(("family", family)) }
        if let socket { labels.append(("socket", socket)) }
        return Observation(key: target.name, state: state, message: message, metrics: metrics, labels: labels)
    }
}
