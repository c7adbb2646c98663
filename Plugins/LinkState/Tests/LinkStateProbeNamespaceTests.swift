import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import LinkStateProbe

/// The probe through its Swift API, created inside a private namespace (its sockets stay
/// there), with a sysfs instance mounted for that namespace.
@Suite("linkstate probe in a namespace", .serialized, .onItsOwnThread)
struct LinkStateProbeNamespaceTests {
    /// Runs `action`, then serves the probe's descriptor until it has been quiet for a while;
    /// returns the last observation of each check emitted on those events.
    /// What the probe emits after `action`: waiting (up to 30 s) for the first event and for
    /// every key in `expecting`, then for whatever follows within 300 ms. A busy machine delivers
    /// netlink's messages late and apart: a fixed wait took one change's path into the next step.
    func step(_ probe: LinkStateProbe, expecting keys: Set<String> = [], _ action: () throws -> Void) throws
        -> [String: Observation]
    {
        try action()
        var emitted: [String: Observation] = [:]
        let fd = try #require(probe.eventFileDescriptor)
        let deadline = Date().addingTimeInterval(30)
        func take() throws {
            for observation in try collect({ try probe.handleEvent(into: $0) }) {
                emitted[observation.key] = observation
            }
        }
        while emitted.isEmpty || !keys.isSubset(of: emitted.keys), Date() < deadline {
            if readable(fd, milliseconds: 500) { try take() }
        }
        while readable(fd, milliseconds: 300) { try take() }
        return emitted
    }

    func readable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    func withProbe(_ body: (LinkStateTopology, LinkStateProbe) throws -> Void) throws {
        let topology = try LinkStateTopology()
        defer { topology.delete() }
        let sysfs = try TestEnvironment.makeTemporaryDirectory("pathwatch-sysfs")
        defer { TestEnvironment.removeTemporaryDirectory(sysfs) }
        try topology.ns.mountSysfs(at: sysfs.path)
        defer { topology.ns.unmount(sysfs.path) }
        let config = try ProbeExport.decodeConfig(LinkStateConfig.self, from: #"{"sysfs_root": "\#(sysfs.path)"}"#)
        let probe = try topology.ns.entered { try LinkStateProbe(config: config) }
        try body(topology, probe)
    }

    @Test(.needsNamespaces) func sampleMatchesIPLinkAndIPRoute() throws {
        try withProbe { topology, probe in
            let observations = try collect { try probe.sample(into: $0) }
            let links = try topology.links()
            #expect(Set(observations.map(\.key)) == Set(links.compactMap { $0["ifname"] as? String } + ["path"]))
            for link in links {
                let name = try #require(link["ifname"] as? String)
                let observation = try #require(observations[name])
                let flags = link["flags"] as? [String] ?? []
                #expect(observation.metric("up") == (flags.contains("UP") ? 1 : 0), "\(name) up")
                #expect(observation.metric("carrier") == (flags.contains("LOWER_UP") ? 1 : 0), "\(name) carrier")
                #expect(observation.metric("mtu") == (link["mtu"] as? Int).map(Double.init), "\(name) mtu")
                #expect(observation.label("mac") == link["address"] as? String, "\(name) mac")
                #expect(
                    observation.label("kind") == (link["linkinfo"] as? [String: Any])?["info_kind"] as? String,
                    "\(name) kind")
                #expect(observation.label("type") == "ethernet")
                let speed = try topology.ns.exec("cat /sys/class/net/\(name)/speed 2>/dev/null || true")
                #expect(
                    observation.metric("speed_mbps") == Double(speed.trimmingCharacters(in: .whitespacesAndNewlines)),
                    "\(name) speed")
                #expect(observation.state == .ok)
            }
            #expect(observations["vA"]?.label(WellKnownLabel.defaultRoute) == "100")
            #expect(observations["vA"]?.message == "up, carrier, 10000 Mb/s, 10.80.0.1/24")
            let device = try #require(try topology.defaultRouteDevice())
            #expect(observations["path"]?.message == "Connected via Ethernet (\(device))")
            #expect(observations["path"]?.state == .ok)
        }
    }

    @Test(.needsNamespaces) func eventsReportOnlyWhatChanged() throws {
        try withProbe { topology, probe in
            _ = try collect { try probe.sample(into: $0) }
            let (ns, peer) = (topology.ns, topology.peer)

            var changed = try step(probe, expecting: ["vA", "path"]) { try peer.ip("link set vB down") }
            #expect(Set(changed.keys) == ["vA", "path"])
            #expect(changed["vA"]?.state == .critical && changed["vA"]?.message.hasPrefix("up, no carrier") == true)
            #expect(
                changed["path"]?.state == .critical && changed["path"]?.message == "Offline - No internet connection")

            changed = try step(probe, expecting: ["vA", "path"]) { try peer.ip("link set vB up") }
            #expect(Set(changed.keys) == ["vA", "path"])
            #expect(changed["vA"]?.state == .ok && changed["path"]?.message == "Connected via Ethernet (vA)")

            changed = try step(probe, expecting: ["vA", "path"]) { try ns.ip("route del default") }
            #expect(Set(changed.keys) == ["vA", "path"])
            #expect(changed["vA"]?.state == .ok && changed["vA"]?.label(WellKnownLabel.defaultRoute) == nil)
            #expect(changed["path"]?.state == .critical)

            changed = try step(probe, expecting: ["vA", "path"]) {
                try ns.ip("route add default via 10.80.0.2 dev vA metric 100")
            }
            #expect(Set(changed.keys) == ["vA", "path"])
            #expect(changed["path"]?.state == .ok && changed["vA"]?.label(WellKnownLabel.defaultRoute) == "100")

            changed = try step(probe, expecting: ["vE"]) { try ns.ip("link del vE") }
            #expect(Set(changed.keys) == ["vE"])
            #expect(changed["vE"]?.state == .unknown && changed["vE"]?.message == "removed")

            changed = try step(probe, expecting: ["vE"]) {
                try ns.ip("link add vE type veth peer name vF netns \(peer.name)")
            }
            #expect(Set(changed.keys) == ["vE"])
            #expect(changed["vE"]?.state == .ok && changed["vE"]?.message == "administratively down")

            changed = try step(probe, expecting: ["vE"]) {
                try peer.ip("link set vF up")
                try ns.ip("link set vE up")
            }
            #expect(Set(changed.keys) == ["vE"])
            #expect(changed["vE"]?.state == .ok && changed["vE"]?.message == "up, carrier, 10000 Mb/s")

            changed = try step(probe, expecting: ["vE"]) { try ns.ip("addr add 10.81.0.1/24 dev vE") }
            #expect(Set(changed.keys) == ["vE"])
            #expect(changed["vE"]?.message == "up, carrier, 10000 Mb/s, 10.81.0.1/24")
        }
    }

    /// A link that comes up is reported at once without its speed: reading sysfs's `speed` takes
    /// the RTNL lock, which the command that brought the link up still holds. The speed follows
    /// on the probe's own timer, through the same descriptor, with no sample asked for: served
    /// until vE's check carries a speed, the probe converges on what sysfs says.
    @Test(.needsNamespaces) func speedFollowsALinkThatCameUp() throws {
        try withProbe { topology, probe in
            _ = try collect { try probe.sample(into: $0) }
            let down = try step(probe) { try topology.ns.ip("link set vE down") }
            #expect(down["vE"]?.message == "administratively down" && down["vE"]?.metric("speed_mbps") == nil)

            try topology.ns.ip("link set vE up")
            let fd = try #require(probe.eventFileDescriptor)
            var reports: [Observation] = []
            // Served until a report of vE carries a speed; a report never comes without a
            // readiness, and a quiet descriptor (3 s) ends the loop, failing the test below.
            while reports.last?.metric("speed_mbps") == nil, readable(fd, milliseconds: 3_000) {
                if let report = try collect({ try probe.handleEvent(into: $0) })["vE"] { reports.append(report) }
            }
            let speed = try topology.ns.exec("cat /sys/class/net/vE/speed").trimmingCharacters(
                in: .whitespacesAndNewlines)
            let first = try #require(reports.first)
            #expect(first.state == .ok && first.message == "up, carrier")
            #expect(first.metric("speed_mbps") == nil)
            let last = try #require(reports.last)
            #expect(last.state == .ok && last.message == "up, carrier, \(speed) Mb/s")
            #expect(last.metric("speed_mbps") == Double(speed))
            // A sample agrees with what the events converged on.
            let sample = try collect { try probe.sample(into: $0) }
            #expect(sample["vE"]?.message == last.message && sample["vE"]?.metric("speed_mbps") == Double(speed))
        }
    }

    /// Taking the uplink down makes IPv4 flush its default route without an RTM_DELROUTE; the
    /// probe must notice, or it would claim a path the kernel no longer has once the link is up.
    @Test(.needsNamespaces) func defaultRouteFlushedByLinkDownIsNotResurrected() throws {
        try withProbe { topology, probe in
            _ = try collect { try probe.sample(into: $0) }
            var changed = try step(probe, expecting: ["vA", "path"]) { try topology.ns.ip("link set vA down") }
            #expect(changed["vA"]?.message == "administratively down")
            #expect(changed["path"]?.state == .critical)

            changed = try step(probe) { try topology.ns.ip("link set vA up") }
            #expect(try topology.defaultRouteDevice() == nil)
            #expect(changed["vA"]?.state == .ok && changed["vA"]?.label(WellKnownLabel.defaultRoute) == nil)
            let sample = try collect { try probe.sample(into: $0) }
            #expect(sample["path"]?.state == .critical)
        }
    }

    /// `v\A` is a glob (fnmatch reads the backslash as an escape) and matches `vA`: it is not a
    /// name reported "not present".
    @Test(.needsNamespaces) func requiredInterfacesAreCriticalWhenDownOrAbsent() throws {
        let topology = try LinkStateTopology()
        defer { topology.delete() }
        let config = try ProbeExport.decodeConfig(
            LinkStateConfig.self, from: #"{"require": ["vE", "wlan0", "v\\A"], "ignore": ["lo", "v[BCD]", "br*"]}"#)
        let probe = try topology.ns.entered { try LinkStateProbe(config: config) }
        var sample = try collect { try probe.sample(into: $0) }
        #expect(Set(sample.map(\.key)) == ["vA", "vE", "wlan0", "path"])
        #expect(sample["vA"]?.state == .ok)
        #expect(sample["wlan0"]?.state == .critical && sample["wlan0"]?.message == "not present")
        #expect(sample["vE"]?.state == .ok)

        var changed = try step(probe, expecting: ["vE"]) { try topology.ns.ip("link set vE down") }
        #expect(Set(changed.keys) == ["vE"])
        #expect(changed["vE"]?.state == .critical && changed["vE"]?.message == "administratively down")

        changed = try step(probe, expecting: ["vE"]) { try topology.ns.ip("link del vE") }
        #expect(changed["vE"]?.state == .critical && changed["vE"]?.message == "removed")
        sample = try collect { try probe.sample(into: $0) }
        #expect(sample["vE"]?.state == .critical)
    }

    /// Far more events than the socket's buffer holds: the kernel drops some (ENOBUFS) and the
    /// probe rebuilds its picture from a dump instead of trusting what it has.
    @Test(.needsNamespaces) func overrunTriggersAFullRedump() throws {
        try withProbe { topology, probe in
            _ = try collect { try probe.sample(into: $0) }
            let directory = try TestEnvironment.makeTemporaryDirectory()
            defer { TestEnvironment.removeTemporaryDirectory(directory) }
            let batch = directory.appendingPathComponent("batch")
            try (0..<4000).map { "address add 10.82.\($0 / 250).\($0 % 250 + 1)/32 dev vE" }.joined(separator: "\n")
                .write(to: batch, atomically: true, encoding: .utf8)
            let changed = try step(probe) { try topology.ns.ip("-batch \(batch.path)") }
            #expect(probe.resynchronizations >= 1)
            #expect(
                changed["vE"]?.message
                    == "up, carrier, 10000 Mb/s, 10.82.0.1/32, 10.82.0.2/32, 10.82.0.3/32, +3997 more")
        }
    }
}
