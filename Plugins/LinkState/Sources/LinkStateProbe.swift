import PathwatchNetlink
import PathwatchProbeKit

/// Link state and the connectivity path, from rtnetlink events: one check per interface and a
/// `path` check. Samples report everything; events report only the checks that changed.
final class LinkStateProbe: Probe {
    typealias Config = LinkStateConfig

    static let name = "linkstate"
    static let version = "1.0.0"
    static let summary = "Interface up/down, carrier and the connectivity path, from rtnetlink events"
    static var flags: ProbeFlags { [.eventDriven] }

    private let config: LinkStateConfig
    private let interfaces: InterfaceReporter
    private let sysfs: Sysfs
    /// Subscribed to link, address and route groups; the host watches it.
    private let events: RouteNetlinkSocket
    /// Requests only, so dump replies never mix with events.
    private let requests: RouteNetlinkSocket
    private var network = NetworkState()
    /// Types never change for the life of an interface; keyed by index and name so a new
    /// interface reusing either is classified afresh.
    private var types: [String: InterfaceType] = [:]
    /// Link speeds read from sysfs, per interface index. An event re-reads only the speed of
    /// the links it touched (a host with a thousand veths must not read a thousand files per
    /// event); a sample re-reads them all.
    private var speeds: [Int32: Int?] = [:]
    /// What the host last received for each check, to emit only changes on events.
    private var lastReported: [String: Report] = [:]
    /// How often events were lost (overrun, unparsable) and the state rebuilt from a dump.
    private(set) var resynchronizations = 0

    init(config: LinkStateConfig) throws {
        try config.validate()
        self.config = config
        sysfs = Sysfs(root: config.sysfsRoot)
        interfaces = InterfaceReporter(config: config)
        do {
            // Subscribe before dumping, so no change between the dump and the subscription is lost.
            events = try RouteNetlinkSocket(groups: .connectivity)
            requests = try RouteNetlinkSocket()
        } catch {
            throw ProbeSampleError("cannot open rtnetlink: \(error)")
        }
        try resynchronize()
    }

    var eventFileDescriptor: Int32? { events.fileDescriptor }

    func sample(into emitter: Emitter) throws {
        speeds = [:]
        try applyPendingEvents()
        for report in reports() { emitter.emit(report.observation) }
    }

    func handleEvent(into emitter: Emitter) throws {
        try applyPendingEvents()
        let before = lastReported
        for report in reports() where report != before[report.key] {
            emitter.emit(report.observation)
        }
    }

    /// Every check as it stands now, plus one "removed" report for each interface that has
    /// disappeared since the last call; remembers them as what the host last saw.
    private func reports() -> [Report] {
        let links = network.links.values.filter { !config.ignore.matchesAny($0.name) }.sorted { $0.index < $1.index }
        var current: [Report] = []
        var candidates: [PathReporter.Candidate] = []
        for link in links {
            let type = classify(link)
            let metric = network.defaultRouteMetric(through: link.index)
            current.append(interfaces.report(
                for: link, type: type, speed: speed(of: link), addresses: network.addresses[link.index] ?? [], defaultRouteMetric: metric))
            if let metric, link.isUp, link.hasCarrier {
                candidates.append(.init(name: link.name, type: type, metric: metric, metered: config.metered.matchesAny(link.name)))
            }
        }
        let present = Set(links.map(\.name))
        for name in requiredNames() where !present.contains(name) {
            current.append(interfaces.missing(name, removed: lastReported[name].map { $0.message != "not present" } ?? false))
        }
        let reported = Set(current.map(\.key))
        let gone = lastReported.keys.filter { $0 != "path" && !reported.contains($0) }.sorted().map(interfaces.removed)
        current.append(PathReporter.report(candidates: candidates))

        lastReported = Dictionary(current.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let live = Set(links.map(typeKey))
        types = types.filter { live.contains($0.key) }
        return gone + current
    }

    /// Literal names in `require` (no glob characters) are reported even when absent; so is any
    /// interface that matched a `require` glob and has gone.
    private func requiredNames() -> [String] {
        let literal = config.require.map(\.pattern).filter { !$0.contains(where: "*?[".contains) }
        let seen = lastReported.keys.filter { $0 != "path" && config.require.matchesAny($0) }
        return Array(Set(literal + seen)).filter { !config.ignore.matchesAny($0) }.sorted()
    }

    private func classify(_ link: Link) -> InterfaceType {
        let key = typeKey(link)
        if let known = types[key] { return known }
        let type = InterfaceType.classify(name: link.name, hardwareType: link.hardwareType, sysfs: sysfs)
        types[key] = type
        return type
    }

    private func speed(of link: Link) -> Int? {
        guard link.isUp else { return nil }
        if let known = speeds[link.index] { return known }
        let speed = sysfs.speedMbps(link.name)
        speeds[link.index] = speed
        return speed
    }

    private func typeKey(_ link: Link) -> String { "\(link.index) \(link.name)" }

    /// Applies every queued event. When the kernel dropped events (overrun) or sent something
    /// that does not parse, the picture is rebuilt from a fresh dump instead of being trusted.
    private func applyPendingEvents() throws {
        let pending: [RouteEvent]
        do {
            pending = try events.receiveEvents()
        } catch {
            resynchronizations += 1
            try resynchronize()
            return
        }
        var refreshRoutes = false
        for event in pending {
            refreshRoutes = refreshRoutes || network.needsRouteRefresh(after: event)
            switch event {
            case .linkChanged(let link), .linkRemoved(let link): speeds[link.index] = nil
            default: break
            }
            network.apply(event)
        }
        if refreshRoutes {
            do {
                network.replaceRoutes(try requests.dumpRoutes())
            } catch {
                throw ProbeSampleError("rtnetlink route dump failed: \(error)")
            }
        }
    }

    /// Discards queued events (they are older than the dump about to be taken), then dumps
    /// links, addresses and routes.
    private func resynchronize() throws {
        speeds = [:]
        for _ in 0..<64 {
            if (try? events.receiveEvents())?.isEmpty == true { break }
        }
        do {
            network = NetworkState(
                links: try requests.dumpLinks(), addresses: try requests.dumpAddresses(), routes: try requests.dumpRoutes())
        } catch {
            throw ProbeSampleError("rtnetlink dump failed: \(error)")
        }
    }
}
