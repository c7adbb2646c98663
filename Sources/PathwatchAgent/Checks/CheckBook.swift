import PathwatchProbeKit

/// How a probe's results are judged: its debounce counts and whether it depends on the network.
struct ProbePolicy: Sendable, Equatable {
    var failAfter: Int
    var recoverAfter: Int
    var needsNetwork: Bool
    var plugin: String
    /// Sampled at once when the link path changes (a connectivity probe).
    var sampleOnPathChange = false
}

/// What a call into a probe produced, as the check book consumes it.
enum ProbeReport: Sendable {
    /// A full sample: every check the probe has; checks it no longer reports go unknown.
    case sample([Observation])
    /// An event: only the checks that changed.
    case event([Observation])
    /// The whole sample failed or timed out: all the probe's checks become unknown.
    case failure(String)
}

extension ProbeReport {
    /// Plug-ins see secrets; what they say goes through the redactor before anyone else sees it.
    func redacted(by redactor: SecretRedactor) -> ProbeReport {
        guard !redactor.isEmpty else { return self }
        func clean(_ o: Observation) -> Observation {
            var o = o
            // The key too: a target named from ${env:…} becomes part of a check id.
            o.key = redactor.redact(o.key)
            o.message = redactor.redact(o.message)
            o.labels = o.labels.map { (redactor.redact($0.name), redactor.redact($0.value)) }
            return o
        }
        switch self {
        case .sample(let list): return .sample(list.map(clean))
        case .event(let list): return .event(list.map(clean))
        case .failure(let message): return .failure(redactor.redact(message))
        }
    }
}

/// All checks of the agent, their state machines, and the change events they raise.
/// Not thread-safe: the agent owns it behind a lock.
struct CheckBook: Sendable {
    let agentName: String
    private(set) var records: [String: CheckRecord] = [:]
    private(set) var path = PathSummary.unmonitored
    /// Probe ids in configuration order, for a stable document order.
    var probeOrder: [String] = []
    var policies: [String: ProbePolicy] = [:]

    init(agentName: String) { self.agentName = agentName }

    static let agentFaultLabel = WellKnownLabel.agentFault

    /// Applies one report of `probe` at `now`; returns the change events it raised, the path's
    /// own change (if the path summary changed) first.
    mutating func apply(_ report: ProbeReport, probe: String, at now: WallTime) -> [ChangeEvent] {
        guard let policy = policies[probe] else { return [] }
        var touched: [String] = []
        switch report {
        case .sample(let observations), .event(let observations):
            var seen = Set<String>()
            for observation in observations {
                let id = "\(probe)/\(observation.key)"
                guard seen.insert(id).inserted else { continue }
                observe(id: id, probe: probe, policy: policy, observation: observation, at: now)
                touched.append(id)
            }
            if case .sample = report {
                // A check the probe stopped reporting is not silently dropped: it goes unknown.
                for (id, record) in records where record.probe == probe && !seen.contains(id) && record.fresh {
                    let stale = Observation(key: "", state: .unknown, message: "not reported since \(record.lastReported.rfc3339)")
                    observe(id: id, probe: probe, policy: policy, observation: stale, at: now, stillFresh: false)
                    touched.append(id)
                }
                // A probe-level failure check is dropped once the probe reports real checks again.
                if !observations.isEmpty, records[probe] != nil { records[probe] = nil }
            }
        case .failure(let message):
            let ids = records.values.filter { $0.probe == probe }.map(\.id)
            let targets = ids.isEmpty ? [probe] : ids
            for id in targets {
                let failed = Observation(key: "", state: .unknown, message: message)
                observe(id: id, probe: probe, policy: policy, observation: failed, at: now, stillFresh: records[id]?.fresh ?? true)
                touched.append(id)
            }
        }
        refreshPath()
        return announce(inDocumentOrder(touched), at: now)
    }

    /// Forgets a probe's checks (the probe was removed or reconfigured).
    mutating func removeProbe(_ probe: String) {
        records = records.filter { $0.value.probe != probe }
        policies[probe] = nil
        probeOrder.removeAll { $0 == probe }
        refreshPath()
    }

    private mutating func observe(id: String, probe: String, policy: ProbePolicy, observation: Observation, at now: WallTime, stillFresh: Bool = true) {
        var published: [(name: String, value: String)] = []
        var facts: [String: String] = [:]
        for label in observation.labels {
            if label.name.hasPrefix("pathwatch.") { facts[label.name] = label.value } else { published.append(label) }
        }
        // A connectivity check that failed or timed out still says something about the path:
        // that what lies behind the link is unknown (not that nobody checks it).
        if facts[WellKnownLabel.internet] == nil, records[id]?.pathFacts[WellKnownLabel.internet] != nil {
            facts[WellKnownLabel.internet] = PathSummary.Internet.unknown.rawValue
        }
        guard var record = records[id] else {
            records[id] = CheckRecord(
                id: id, probe: probe, plugin: policy.plugin, state: observation.state, since: now,
                message: observation.message, metrics: observation.metrics, labels: published, pathFacts: facts,
                lastReported: now, fresh: stillFresh, debounce: Debounce(), announced: nil)
            return
        }
        let next = record.debounce.feed(observation.state, current: record.state, failAfter: policy.failAfter, recoverAfter: policy.recoverAfter)
        if next != record.state {
            record.state = next
            record.since = now
        }
        record.message = observation.message
        if let progress = record.debounce.progress(failAfter: policy.failAfter, recoverAfter: policy.recoverAfter, current: record.state) {
            record.message += record.message.isEmpty ? progress : " \(progress)"
        }
        if stillFresh {
            record.metrics = observation.metrics
            record.labels = published
            record.pathFacts = facts
            record.lastReported = now
        } else {
            // A stale check keeps its last labels, but its metrics no longer describe anything.
            record.metrics = []
            record.pathFacts = [:]
        }
        record.fresh = stillFresh
        records[id] = record
    }

    /// Raises events for the checks whose state differs from the last one announced. While the
    /// path is unsatisfied (no link, or a link with no internet or a portal behind it), checks
    /// of network-dependent probes stay silent: the path's own event says it once, instead of
    /// one alert per endpoint. A connectivity check stays silent while the link itself is down
    /// (the link's event is that alert). They catch up on their first report after the path is
    /// satisfied again.
    private mutating func announce(_ ids: [String], at now: WallTime) -> [ChangeEvent] {
        var events: [ChangeEvent] = []
        let offline = path.status == .unsatisfied
        let reason = path.linkSatisfied ? Self.offlineReason(path.internet) : "(host offline)"
        for id in ids {
            guard var record = records[id], let policy = policies[record.probe] else { continue }
            let checksInternet = record.pathFacts[WellKnownLabel.internet] != nil
            if (policy.needsNetwork && offline) || (checksInternet && offline && !path.linkSatisfied) {
                if record.state != .ok && !Self.offlineReasons.contains(where: record.message.hasSuffix) {
                    record.message += " \(reason)"
                }
                records[id] = record
                continue
            }
            if record.announced == record.state { continue }
            // The agent's own fault (out of file descriptors) says nothing about what the check
            // observes: shown as unknown, never announced; the next real state is compared with
            // what was last announced.
            if record.pathFacts[Self.agentFaultLabel] != nil { continue }
            // A check first seen ok is news to nobody, and first seen unknown changed from nothing
            // known; only a first state that is a problem is announced (from "unknown").
            if record.announced == nil && (record.state == .ok || record.state == .unknown) {
                record.announced = record.state
                records[id] = record
                continue
            }
            events.append(ChangeEvent(
                id: EventID.make(at: now), agent: agentName, check: id, probe: record.probe,
                from: record.announced, to: record.state, at: now, message: record.message, path: path))
            record.announced = record.state
            records[id] = record
        }
        return events
    }

    /// What a silenced check's message ends with, by why the path is unsatisfied.
    static func offlineReason(_ internet: PathSummary.Internet?) -> String {
        switch internet {
        case .portal: "(sign-in required)"
        case .limited: "(no internet access)"
        case .unknown: "(internet access unknown)"
        case .full, nil: "(host offline)"
        }
    }

    static let offlineReasons = ([nil, .full, .portal, .limited, .unknown] as [PathSummary.Internet?]).map(offlineReason)

    private mutating func refreshPath() {
        let previous = path
        path = PathSummary.compute(from: records.values.filter(\.fresh).map(\.pathFacts))
        // A verdict on what lies behind one link says nothing about the next: when the link
        // changes (but not when the agent first learns of it), the internet is unknown until the
        // connectivity probe, sampled at once, reports again — as NetworkManager re-checks.
        guard previous.status != .unknown, path.internet != nil, path.linkDiffers(from: previous) else { return }
        for (id, record) in records where record.pathFacts[WellKnownLabel.internet] != nil {
            records[id]?.pathFacts[WellKnownLabel.internet] = PathSummary.Internet.unknown.rawValue
        }
        path = PathSummary.compute(from: records.values.filter(\.fresh).map(\.pathFacts))
    }

    /// `ids` in document order: by the probe's place in the configuration (checks of a probe no
    /// longer configured last), then by id. Each id's place is looked up once, not once per
    /// comparison: a sort of n checks makes n log n comparisons.
    func inDocumentOrder(_ ids: some Sequence<String>) -> [String] {
        var rank: [String: Int] = [:]
        for (position, probe) in probeOrder.enumerated() where rank[probe] == nil { rank[probe] = position }
        let placed: [(place: Int, id: String)] = ids.map { id in
            let place = records[id].flatMap { rank[$0.probe] } ?? Int.max
            return (place, id)
        }
        return placed.sorted { $0.place != $1.place ? $0.place < $1.place : $0.id < $1.id }.map(\.id)
    }

    /// The checks in document order.
    var orderedRecords: [CheckRecord] { inDocumentOrder(records.keys).compactMap { records[$0] } }
}
