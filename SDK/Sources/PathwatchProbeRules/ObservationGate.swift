import CPathwatchProbe
import PathwatchProbeKit
import Synchronization

/// Where a call's accepted observations go: Swift values (the inline host, `ProbeTester`) or a
/// result record a plug-in's child writes as they arrive (the agent's own keeper).
public protocol ObservationKeeping: Sendable {
    mutating func keep(_ observation: CheckedObservation)
    var count: Int { get }
}

/// Accepted observations kept as Swift values.
public struct KeptObservations: ObservationKeeping {
    public private(set) var observations: [Observation] = []
    public init() {}

    /// Keeps `observation`, sharing the labels of the one before when they are all the same:
    /// a probe's checks of one server (a thousand endpoints with the same `endpoint` and
    /// `method`) then hold one array of labels, not one each, for as long as the agent keeps
    /// them. The agent's reader of a child's records does the same. The plug-in's bytes are
    /// compared with the labels kept, so that labels found alike are never made into Strings.
    public mutating func keep(_ observation: CheckedObservation) {
        if let before = observations.last?.labels, !before.isEmpty, before.count == observation.labels.count,
            zip(before, observation.labels).allSatisfy({ $1.name.holds($0.name) && $1.value.holds($0.value) })
        {
            observations.append(observation.observation(labels: before))
        } else {
            observations.append(observation.observation)
        }
    }

    public var count: Int { observations.count }
}

/// The one door an emitted observation goes through, in the agent and in `ProbeTester`: checked
/// (`CheckedObservation`), then refused when the call already returned, when it is over the
/// call's limit, or when its key came already in this call; kept otherwise. A plug-in may emit
/// from threads of its own while its call runs, so the gate is locked.
///
/// `accept` is inlinable, with the state it touches: a caller in another module (the agent's
/// collector, `ProbeTester`) then gets it specialised for its keeper. Unspecialised, every emit
/// looked up the metadata of `Mutex<State>` and called `keep` through its witness table, about
/// a thousand instructions an observation.
///
/// `Kept` is only required to be a keeper where a keeper is used (`accept`, `acceptedCount`):
/// a requirement on the class itself made the runtime look `Kept`'s conformance up across every
/// loaded image the first time a gate was made (in the agent, on each thread of the first samples
/// at once), some 165,000 instructions each.
public final class ObservationGate<Kept: Sendable>: Sendable {
    @usableFromInline struct State {
        @usableFromInline var kept: Kept
        @usableFromInline var keys: Set<String> = []
        @usableFromInline var problems: [String] = []
        @usableFromInline var refused = 0
        @usableFromInline var closed = false
        @usableFromInline var overLimit = false

        @usableFromInline init(kept: Kept) { self.kept = kept }
    }
    @usableFromInline let state: Mutex<State>
    @usableFromInline let maxObservations: Int
    @usableFromInline let catalog: MetricCatalog

    /// `maxObservations`: the probe's `max_observations`, at most the limit per call.
    public init(
        _ kept: Kept, maxObservations: Int = ObservationLimits.observationsPerCall, catalog: MetricCatalog = .undeclared
    ) {
        self.maxObservations = min(maxObservations, ObservationLimits.observationsPerCall)
        self.catalog = catalog
        state = Mutex(State(kept: kept))
    }

    /// What was refused or left out, and why, in the words the agent logs.
    public var problems: [String] { state.withLock { $0.problems } }
    /// How many observations were refused whole (not counting parts left out of kept ones).
    public var refusedCount: Int { state.withLock { $0.refused } }

    /// Reads what was kept, under the lock.
    public func withKept<T>(_ body: (inout Kept, _ problems: [String]) -> T) -> T {
        state.withLock { s in body(&s.kept, s.problems) }
    }

    /// Refuses every emit from now on: the call it was handed to has returned.
    public func close() { state.withLock { $0.closed = true } }

    /// Says a problem of the plug-in's found outside this call's emits (emits refused after an
    /// earlier call returned, LateEmits), among this call's.
    public func note(_ problem: String) { state.withLock { $0.problems.append(problem) } }
}

extension ObservationGate where Kept: ObservationKeeping {
    public var acceptedCount: Int { state.withLock { $0.kept.count } }

    /// emit(): PW_OK when the observation was kept (perhaps without some of its parts), PW_ERR
    /// when it was refused.
    @inlinable public func accept(_ raw: UnsafePointer<pw_observation>?) -> Int32 {
        switch CheckedObservation.check(raw, catalog: catalog) {
        case .refused(let problem):
            return state.withLock { s in
                guard !s.closed else { return PW_ERR }
                s.problems.append(problem.description + "; refused")
                s.refused += 1
                return PW_ERR
            }
        case .accepted(let checked):
            return state.withLock { s in
                guard !s.closed else { return PW_ERR }
                s.problems += checked.dropped
                guard s.kept.count < maxObservations else {
                    if !s.overLimit {
                        s.problems.append("more than \(maxObservations) observations in one call; the rest refused")
                    }
                    s.overLimit = true
                    s.refused += 1
                    return PW_ERR
                }
                guard s.keys.insert(checked.key).inserted else {
                    s.problems.append(
                        "check \"\(checked.key)\": a second observation with this key in one call; refused, the first kept"
                    )
                    s.refused += 1
                    return PW_ERR
                }
                // Copied while the plug-in's emit call still holds its texts.
                s.kept.keep(checked)
                return PW_OK
            }
        }
    }
}
