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
    /// Subscribed to link, address and route groups.
    private let events: RouteNetlinkSocket
    /// Fires when speeds are due to be read (see `LinkSpeeds`).
    private let speedTimer: SpeedReadTimer
    /// The netlink socket and the timer: the descriptor the host watches.
    private let wakeups: EventSet
    /// Requests only, so dump replies never mix with events.
    private let requests: RouteNetlinkSocket
    private var network = NetworkState()
    /// Types never change for the life of an interface; by index, with the name it was read
    /// under, so a new interface reusing either is classified afresh. (Keyed by the index alone:
    /// a key type of its own made the first sample search every loaded image's conformances
    /// for its `Hashable`, some 150,000 instructions.)
    private var types: [Int32: (name: String, type: InterfaceType)] = [:]
    /// `require`'s literal names (no glob characters) that are not ignored, sorted: reported
    /// even when absent.
    private let requiredLiterals: [String]
    /// `require`'s globs: an interface that matched one and has gone is reported too.
    private let requiredGlobs: [Glob]
    /// Link speeds read from sysfs. An event re-reads only the speeds of the links it touched
    /// (a host with a thousand veths must not read a thousand files per event), after the
    /// change is reported; a sample re-reads them all.
    private var speeds = LinkSpeeds()
    /// What the host last received for each check, to emit only changes on events.
    private var lastReported: [String: Report] = [:]
    /// How often events were lost (overrun, unparsable) and the state rebuilt from a dump.
    private(set) var resynchronizations = 0

    init(config: LinkStateConfig) throws {
        try config.validate()
        self.config = config
        requiredLiterals = Array(Set(config.require.filter(\.isLiteral).map(\.pattern))).filter {
            !config.ignore.matchesAny($0)
        }.sorted()
        requiredGlobs = config.require.filter { !$0.isLiteral }
        sysfs = Sysfs(root: config.sysfsRoot)
        interfaces = InterfaceReporter(config: config)
        do {
            // Subscribe before dumping, so no change between the dump and the subscription is lost.
            events = try RouteNetlinkSocket(groups: .connectivity)
            requests = try RouteNetlinkSocket()
        } catch {
            throw ProbeSampleError("cannot open rtnetlink: \(error)")
        }
        speedTimer = try SpeedReadTimer()
        wakeups = try EventSet(watching: [events.fileDescriptor, speedTimer.fileDescriptor])
        try resynchronize()
    }

    var eventFileDescriptor: Int32? { wakeups.fileDescriptor }

    /// How long after a link change its speed is read: long enough for the command that made
    /// the change to have released the RTNL lock the read takes (`ip link set` holds it for
    /// well under a millisecond after the kernel's notification), short enough that the speed
    /// follows the change before anyone looks.
    static let speedReadDelayNanoseconds = 10_000_000

    func sample(into emitter: Emitter) throws {
        _ = try receive { () throws(NetlinkError) in try events.receiveEvents(defaultRoutesOnly: true) }
        speeds.readAll(reportedLinks(), sysfs: sysfs)
        speedTimer.disarm()
        for report in reports() { emitter.emit(report.observation) }
    }

    /// Serves the netlink socket and the speed timer. The speeds due are read before the new
    /// events are applied, so an event never waits for a speed read it made due itself.
    ///
    /// The first notification waiting is received alone: when it touches a check (the link
    /// change comes first in its burst, before its peer's carrier and its IPv6 routes and
    /// addresses), it is reported before the rest is even received, and the rest, which keeps
    /// the socket readable, is served by the next call. Otherwise the rest is received at once.
    /// Reports are built only when something touched a check.
    func handleEvent(into emitter: Emitter) throws {
        var touched = false
        if speedTimer.takeExpiry() {
            speeds.readDue(of: network.links, sysfs: sysfs)
            touched = true
        }
        if try receive({ () throws(NetlinkError) in try events.receiveFirstEvents(defaultRoutesOnly: true) ?? [] }) {
            touched = true
        } else if try receive({ () throws(NetlinkError) in try events.receiveEvents(defaultRoutesOnly: true) }) {
            touched = true
        }
        if !speeds.due.isEmpty { speedTimer.arm(afterNanoseconds: Self.speedReadDelayNanoseconds) }
        guard touched else { return }
        let before = lastReported
        for report in reports() where report != before[report.key] {
            emitter.emit(report.observation)
        }
    }

    /// Every check as it stands now, plus one "removed" report for each interface that has
    /// disappeared since the last call; remembers them as what the host last saw. Runs on every
    /// event, between the kernel's notice and the change's line: sets are built only where
    /// there is something to look up in them.
    private func reports() -> [Report] {
        let links = reportedLinks()
        var current: [Report] = []
        current.reserveCapacity(links.count + 2)
        var candidates: [PathReporter.Candidate] = []
        for link in links {
            let type = classify(link)
            let metric = network.defaultRouteMetric(through: link.index)
            current.append(
                interfaces.report(
                    for: link, type: type, speed: speeds.speed(of: link),
                    addresses: network.addresses[link.index] ?? [], defaultRouteMetric: metric))
            if let metric, link.isUp, link.hasCarrier {
                candidates.append(
                    .init(name: link.name, type: type, metric: metric, metered: config.metered.matchesAny(link.name)))
            }
        }
        let required = requiredNames()
        if !required.isEmpty {
            let present = Set(links.map(\.name))
            for name in required where !present.contains(name) {
                current.append(
                    interfaces.missing(name, removed: lastReported[name].map { $0.message != "not present" } ?? false))
            }
        }
        current.append(PathReporter.report(candidates: candidates))

        var next: [String: Report] = [:]
        next.reserveCapacity(current.count)
        for report in current where next[report.key] == nil { next[report.key] = report }
        let gone = lastReported.keys.filter { next[$0] == nil }.sorted().map(interfaces.removed)
        lastReported = next
        // Each reported link has one type; more means some belong to links gone or renamed.
        if types.count > links.count {
            types = types.filter { network.links[$0.key]?.name == $0.value.name }
        }
        return gone + current
    }

    /// The links that have a check, by index.
    private func reportedLinks() -> [Link] {
        network.links.values.filter { !config.ignore.matchesAny($0.name) }.sorted { $0.index < $1.index }
    }

    /// Literal names in `require` (no glob characters) are reported even when absent; so is any
    /// interface that matched a `require` glob and has gone.
    private func requiredNames() -> [String] {
        guard !requiredGlobs.isEmpty else { return requiredLiterals }
        let seen = lastReported.keys.filter {
            $0 != "path" && requiredGlobs.matchesAny($0) && !config.ignore.matchesAny($0)
        }
        return Array(Set(requiredLiterals + seen)).sorted()
    }

    private func classify(_ link: Link) -> InterfaceType {
        if let known = types[link.index], known.name == link.name { return known.type }
        let type = InterfaceType.classify(name: link.name, hardwareType: link.hardwareType, sysfs: sysfs)
        types[link.index] = (link.name, type)
        return type
    }

    /// Applies the events `read` receives; true when any may change a check (see `touches`).
    /// When the kernel dropped events (overrun) or sent something that does not parse, the
    /// picture is rebuilt from a fresh dump instead of being trusted (and everything may change).
    private func receive(_ read: () throws(NetlinkError) -> [RouteEvent]) throws -> Bool {
        let pending: [RouteEvent]
        do {
            pending = try read()
        } catch {
            resynchronizations += 1
            try resynchronize()
            return true
        }
        var touched = false
        var refreshRoutes = false
        for event in pending {
            touched = touched || touches(event)
            refreshRoutes = refreshRoutes || network.needsRouteRefresh(after: event)
            switch event {
            case .linkChanged(let link): speeds.linkChanged(link, reported: !config.ignore.matchesAny(link.name))
            case .linkRemoved(let link): speeds.linkRemoved(link.index)
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
            return true
        }
        return touched
    }

    /// Whether applying `event` (not yet applied) may change a check: it concerns a link that
    /// has one, under its old name or its new, or an address of such a link (or of a link not
    /// known), or a default route (the path, and the route labels). Events about ignored
    /// links, such as a veth's peer losing carrier, change nothing anyone sees.
    private func touches(_ event: RouteEvent) -> Bool {
        func reported(_ index: Int32) -> Bool {
            guard let known = network.links[index] else { return true }
            return !config.ignore.matchesAny(known.name)
        }
        switch event {
        case .linkChanged(let link), .linkRemoved(let link):
            return !config.ignore.matchesAny(link.name)
                || (network.links[link.index].map { !config.ignore.matchesAny($0.name) } ?? false)
        case .addressAdded(let address), .addressRemoved(let address):
            return reported(address.interfaceIndex)
        case .routeAdded(let route, _), .routeRemoved(let route):
            return route.isMainDefault
        }
    }

    /// Discards queued events (they are older than the dump about to be taken), then dumps
    /// links, addresses and routes. Every speed is due again (read at the next sample, or by the
    /// timer when an event follows).
    private func resynchronize() throws {
        for _ in 0..<64 {
            if (try? events.receiveEvents())?.isEmpty == true { break }
        }
        do {
            network = NetworkState(
                links: try requests.dumpLinks(), addresses: try requests.dumpAddresses(),
                routes: try requests.dumpRoutes())
        } catch {
            throw ProbeSampleError("rtnetlink dump failed: \(error)")
        }
        speeds.markDue(reportedLinks())
    }
}
