import PathwatchProbeKit
import PathwatchProbeRules
import Synchronization

/// How a probe's results are judged: its debounce counts and whether it depends on the network.
package struct ProbePolicy: Sendable, Equatable {
    package var failAfter: Int
    package var recoverAfter: Int
    package var needsNetwork: Bool
    package var plugin: String
    /// Sampled at once when the link path changes (a connectivity probe).
    package var sampleOnPathChange = false
    /// What the plug-in's metrics are: every exposition of its checks reads it.
    package var metrics: MetricCatalog = .undeclared

    package init(
        failAfter: Int, recoverAfter: Int, needsNetwork: Bool, plugin: String, sampleOnPathChange: Bool = false,
        metrics: MetricCatalog = .undeclared
    ) {
        self.failAfter = failAfter
        self.recoverAfter = recoverAfter
        self.needsNetwork = needsNetwork
        self.plugin = plugin
        self.sampleOnPathChange = sampleOnPathChange
        self.metrics = metrics
    }
}

/// All checks of the agent, their state machines, and the change events they raise.
/// Not thread-safe: the agent owns it behind a lock.
package struct CheckBook: Sendable {
    package let agentName: String
    /// Every check's record (`CheckTable`: a snapshot's copy is the records, not a hash table).
    package private(set) var records = CheckTable()
    /// Each probe's check ids: a report visits its own probe's checks, never the whole book
    /// (with a thousand probes, every report walked every check, and cost grew with the square).
    package private(set) var idsByProbe: [String: Set<String>] = [:]
    /// Each probe's one origin (probe, plug-in, metric catalog), which all its checks share;
    /// made anew when the probe's policy names another plug-in or catalog.
    private var origins: [String: CheckOrigin] = [:]
    /// The checks that carry path facts (a link's, a connectivity or DNS verdict): the few the
    /// path summary is computed from, so a report need not look through every check for them.
    private var pathFactIDs: Set<String> = []
    /// Whether the last report changed a check's state, added a check or dropped one, whether
    /// or not that raised an event (a check that recovers while its alerts were held back, or is
    /// first seen ok, raises none): the whole state then goes out at once (DocumentPacing).
    package var lastReportChangedState = false
    /// Changes when a check's state changes, or a check is added or dropped: equal versions,
    /// equal states. Drawn from one count for the whole process, so two books (before and
    /// after a reload) never share one. A file sink compares it at every document, where a hash
    /// of every check's id and state walked the whole book each time.
    package private(set) var statesVersion: UInt64 = 0
    private static let statesVersions = Atomic<UInt64>(0)
    /// Changes when a check is added or dropped or the probes' order is set: the document order
    /// sorted at one version holds until the next (CheckBook+Order). Drawn from one count for
    /// the process, as `statesVersion` is.
    package private(set) var membershipVersion: UInt64 = 0
    private static let membershipVersions = Atomic<UInt64>(0)
    /// The document order last sorted, shared with the snapshots' copies of the book.
    let orderCache = DocumentOrderCache()
    package private(set) var path = PathSummary.unmonitored
    /// Counts reports; each check keeps the serial of the last one that touched it.
    private var reportSerial: UInt64 = 0
    /// Probe ids in configuration order, for a stable document order.
    package var probeOrder: [String] = [] { didSet { bumpMembershipVersion() } }
    package var policies: [String: ProbePolicy] = [:]
    /// The states checks were last announced in before a restart (AnnouncedStates), each taken
    /// by its check when first seen.
    package var announcedBefore: [String: AnnouncedStates.Entry] = [:]
    /// The checks of probes a reload replaced, kept until each successor reports
    /// (CheckBook+Succession).
    package var heldOver: [String: Set<String>] = [:]

    package init(agentName: String) {
        self.agentName = agentName
        bumpMembershipVersion()
    }

    package static let agentFaultLabel = WellKnownLabel.agentFault

    /// Applies one report of `probe` at `now`; returns the change events it raised, the path's
    /// own change (if the path summary changed) first.
    ///
    /// Each check is found once per report (`index(forKey:)`) and changed where it is stored:
    /// a sample of a few hundred checks used to look each up, copy it out and store it back
    /// several times over, hashing its id at every step.
    package mutating func apply(_ report: ProbeReport, probe: String, at now: WallTime) -> [ChangeEvent] {
        lastReportChangedState = false
        guard let policy = policies[probe] else { return [] }
        if !heldOver.isEmpty { endHoldOver(probe, by: report) }
        reportSerial &+= 1
        let serial = reportSerial
        let origin = origin(of: probe, under: policy)
        // Where the checks this report fed are, for `announce` to visit without finding each by
        // id again; nil when the report fed none by place, others were fed as stale, or a check
        // was removed since.
        var fed: [Int]?
        switch report {
        case .sample(let observations), .event(let observations):
            fed = feed(observations, origin: origin, policy: policy, at: now, serial: serial)
            if case .sample = report {
                // A check the probe stopped reporting is not silently dropped: it goes unknown.
                // Only looked for when the report fed fewer checks than the probe has.
                if let ids = idsByProbe[probe], ids.count != fed?.count {
                    updateEach(of: ids) { record in
                        guard record.reportSerial != serial, record.fresh else { return }
                        let stale = Observation(
                            key: "", state: .unknown, message: "not reported since \(record.lastReported.rfc3339)")
                        record.feed(stale, origin: origin, policy: policy, at: now, serial: serial, stillFresh: false)
                    }
                    fed = nil
                }
                // A probe-level failure check is dropped once the probe reports real checks again.
                if !observations.isEmpty, records[probe] != nil {
                    forget(probe, of: probe)
                    lastReportChangedState = true
                    fed = nil
                }
            }
        case .failure(let message):
            let failed = Observation(key: "", state: .unknown, message: message)
            var found = false
            updateEach(of: idsByProbe[probe] ?? []) { record in
                found = true
                record.feed(failed, origin: origin, policy: policy, at: now, serial: serial, stillFresh: record.fresh)
            }
            if !found {
                insert(id: probe, origin: origin, observation: failed, metrics: MetricList(), at: now, serial: serial)
            }
        }
        refreshPath()
        let events = announce(serial: serial, probe: probe, fed: fed, policy: policy, at: now)
        if lastReportChangedState { bumpStatesVersion() }
        return events
    }

    /// The origin every check of `probe` shares under `policy`: the one they hold while it
    /// still matches, else a new one, which each check takes as it is next fed.
    private mutating func origin(of probe: String, under policy: ProbePolicy) -> CheckOrigin {
        if let held = origins[probe], held.matches(policy) { return held }
        let made = CheckOrigin(probe: probe, plugin: policy.plugin, metricCatalog: policy.metrics)
        origins[probe] = made
        return made
    }

    /// Feeds each observation to its check, making the checks seen for the first time; returns
    /// the places of the checks fed, each once.
    private mutating func feed(
        _ observations: [Observation], origin: CheckOrigin, policy: ProbePolicy, at now: WallTime, serial: UInt64
    ) -> [Int] {
        let probe = origin.probe
        // Room for a first sample's checks at once, rather than growing (and rehashing) the
        // table step by step.
        if idsByProbe[probe] == nil { records.reserveRoom(forAdding: observations.count) }
        // A probe's checks mostly have the same metrics: each check's share the series of the
        // check before it in the report.
        var series: MetricList.Series?
        var fed: [Int] = []
        fed.reserveCapacity(observations.count)
        for observation in observations {
            let id = "\(probe)/\(observation.key)"
            if let place = records.place(of: id) {
                // A key repeated within one report: the first is kept.
                guard records.record(at: place).reportSerial != serial else { continue }
                let facts = records.update(at: place) { record in
                    record.feed(observation, origin: origin, policy: policy, at: now, serial: serial, sharing: series)
                    series = record.metrics.sharedSeries ?? series
                    return !record.pathFacts.isEmpty
                }
                if facts { pathFactIDs.insert(id) }
                fed.append(place)
            } else {
                let metrics = MetricList(observation.metrics, sharing: series)
                series = metrics.sharedSeries ?? series
                let place = insert(
                    id: id, origin: origin, observation: observation, metrics: metrics, at: now, serial: serial)
                fed.append(place)
            }
        }
        return fed
    }

    private mutating func bumpStatesVersion() {
        statesVersion = Self.statesVersions.add(1, ordering: .relaxed).newValue
    }

    private mutating func bumpMembershipVersion() {
        membershipVersion = Self.membershipVersions.add(1, ordering: .relaxed).newValue
    }

    /// Visits the checks `ids` names (a probe's, or those with path facts) where they are stored:
    /// changed in the table, so no second reference to the storage makes the first change copy
    /// the whole book.
    private mutating func updateEach(of ids: Set<String>, _ body: (inout CheckRecord) -> Void) {
        for id in ids {
            guard let place = records.place(of: id) else { continue }
            records.update(at: place, body)
        }
    }

    /// Visits the checks at `places`, or when there are none to go by, every check of `probe`.
    private mutating func updateEach(at places: [Int]?, elseOf probe: String, _ body: (inout CheckRecord) -> Void) {
        guard let places else { return updateEach(of: idsByProbe[probe] ?? [], body) }
        for place in places { records.update(at: place, body) }
    }

    /// The checks of `probe`, by id: a view of the one probe that reported. The ids are sorted
    /// once for each change of which checks exist, and their places kept (`DocumentOrderCache`):
    /// a sink that takes every report (remote write) asks at every report of every probe, and
    /// sorting a probe's 200 checks each time was a tenth of the agent's CPU while it pushed.
    package func records(ofProbe probe: String) -> [CheckRecord] {
        let places: [Int]
        if let kept = orderCache.places(of: probe, at: membershipVersion) {
            places = kept
        } else {
            let ids = (idsByProbe[probe] ?? []).sorted(by: DocumentOrder.utf8Precedes)
            // Every id of a probe's index is in the table; its place holds while the version does.
            places = ids.compactMap { records.place(of: $0) }
            orderCache.keep(places, of: probe, at: membershipVersion)
        }
        // Room for every check at once: grown as it went, the list was copied some nine times a report.
        var found: [CheckRecord] = []
        found.reserveCapacity(places.count)
        for place in places { found.append(records.record(at: place)) }
        return found
    }

    /// Drops one check and its place in the indexes.
    package mutating func forget(_ id: String, of probe: String) {
        records.remove(id)
        idsByProbe[probe]?.remove(id)
        pathFactIDs.remove(id)
        bumpMembershipVersion()
    }

    /// Forgets a probe's checks (the probe was removed or reconfigured).
    package mutating func removeProbe(_ probe: String) {
        heldOver[probe] = nil
        for id in idsByProbe.removeValue(forKey: probe) ?? [] {
            records.remove(id)
            pathFactIDs.remove(id)
        }
        bumpMembershipVersion()
        policies[probe] = nil
        origins[probe] = nil
        announcedBefore = announcedBefore.filter { $0.value.probe != probe }
        probeOrder.removeAll { $0 == probe }
        refreshPath()
        bumpStatesVersion()
    }

    /// A check seen for the first time; returns its place.
    @discardableResult
    private mutating func insert(
        id: String, origin: CheckOrigin, observation: Observation, metrics: MetricList, at now: WallTime,
        serial: UInt64
    ) -> Int {
        let (published, facts) = ObservationLabels.split(observation.labels)
        idsByProbe[origin.probe, default: []].insert(id)
        bumpMembershipVersion()
        if !facts.isEmpty { pathFactIDs.insert(id) }
        let record = CheckRecord(
            id: id, origin: origin, since: now, message: observation.message, metrics: metrics, labels: published,
            pathFacts: facts, lastReported: now, reportSerial: serial, debounce: Debounce(), state: observation.state,
            fresh: true, announced: announcedBefore.isEmpty ? nil : announcedBefore.removeValue(forKey: id)?.state)
        return records.add(record)
    }

    /// Raises events for the checks whose state differs from the last one announced. While the
    /// path is unsatisfied (no link, or a link with no internet or a portal behind it), checks
    /// of network-dependent probes stay silent: the path's own event says it once, instead of
    /// one alert per endpoint. A connectivity check stays silent while the link itself is down
    /// (the link's event is that alert). They catch up on their first report after the path is
    /// satisfied again.
    ///
    /// Events come out in document order; only the few checks that raise one are sorted.
    /// `fed` are the places of the checks the report fed, when they still hold: visited there,
    /// else the probe's checks are found by id.
    private mutating func announce(serial: UInt64, probe: String, fed: [Int]?, policy: ProbePolicy, at now: WallTime)
        -> [ChangeEvent]
    {
        var raised: [(id: String, from: CheckState?)] = []
        let offline = path.status == .unsatisfied
        let linkSatisfied = path.linkSatisfied
        let reason = linkSatisfied ? path.offlineReason : "(host offline)"
        var changed = false
        updateEach(at: fed, elseOf: probe) { record in
            // Only the checks this report touched.
            guard record.reportSerial == serial else { return }
            // A check that is new, or whose state changed now, whether or not it is announced.
            if record.since == now { changed = true }
            if let from = Self.announce(
                &record, policy: policy, offline: offline, linkSatisfied: linkSatisfied, reason: reason)
            {
                raised.append((record.id, from))
            }
        }
        if changed { lastReportChangedState = true }
        guard !raised.isEmpty else { return [] }
        let from = Dictionary(raised.map { ($0.id, $0.from) }, uniquingKeysWith: { first, _ in first })
        // Every check raised here is this probe's: one place in the document, so the order is by
        // id alone, without ranking every configured probe (a thousand, at every report).
        let placed = raised.map { (place: 0, id: $0.id) }
        return DocumentOrder.positions(of: placed).map { placed[$0].id }.compactMap { id in
            guard let record = records[id] else { return nil }
            return ChangeEvent(
                id: EventID.make(at: now), agent: agentName, check: id, probe: record.probe,
                from: from[id] ?? nil, to: record.state, at: now, message: record.message, path: path)
        }
    }

    /// Announces one check in place: the state it was announced in before, when it raises an
    /// event (`.some(nil)` for a first announcement), nil when it raises none.
    private static func announce(
        _ record: inout CheckRecord, policy: ProbePolicy, offline: Bool, linkSatisfied: Bool, reason: String
    ) -> CheckState?? {
        // A connectivity or DNS check is the path's own alert: silent only while the link is down.
        let checksPath =
            !record.pathFacts.isEmpty
            && (record.pathFacts[WellKnownLabel.internet] != nil || record.pathFacts[WellKnownLabel.dns] != nil)
        if (policy.needsNetwork && offline && !checksPath) || (checksPath && offline && !linkSatisfied) {
            if record.state != .ok && !PathSummary.offlineReasons.contains(where: record.message.hasSuffix)
                && !record.message.hasSuffix(reason)
            {
                record.message += " \(reason)"
            }
            return nil
        }
        if record.announced == record.state { return nil }
        // The agent's own fault (out of file descriptors) says nothing about what the check
        // observes: shown as unknown, never announced; the next real state is compared with
        // what was last announced.
        if !record.pathFacts.isEmpty, record.pathFacts[agentFaultLabel] != nil { return nil }
        // A check first seen ok is news to nobody, and first seen unknown changed from nothing
        // known; only a first state that is a problem is announced (from "unknown").
        if record.announced == nil && (record.state == .ok || record.state == .unknown) {
            record.announced = record.state
            return nil
        }
        let from = record.announced
        record.announced = record.state
        return .some(from)
    }

    private mutating func refreshPath() {
        let previous = path
        path = PathSummary.compute(from: freshPathFacts)
        // A verdict on what lies behind one link says nothing about the next: when the link
        // changes (but not when the agent first learns of it), the internet is unknown until the
        // connectivity probe, sampled at once, reports again — as NetworkManager re-checks.
        guard previous.status != .unknown, path.linkDiffers(from: previous) else { return }
        var held = false
        updateEach(of: pathFactIDs) { record in
            if record.pathFacts[WellKnownLabel.internet] != nil {
                record.pathFacts[WellKnownLabel.internet] = PathSummary.Internet.unknown.rawValue
                held = true
            }
            // The resolvers behind one link may not be the ones behind the next.
            if record.pathFacts[WellKnownLabel.dns] != nil {
                record.pathFacts[WellKnownLabel.dns] = "unknown"
                held = true
            }
        }
        guard held else { return }
        path = PathSummary.compute(from: freshPathFacts)
    }

    /// The path facts of the fresh checks that have any (a disk's or an endpoint's have none,
    /// and say nothing about the path).
    private var freshPathFacts: [[String: String]] {
        pathFactIDs.compactMap { id in
            guard let record = records[id], record.fresh, !record.pathFacts.isEmpty else { return nil }
            return record.pathFacts
        }
    }
}
